"""`/usr/bin/python3 -m pip install --no-build-isolation ./python`, offline
with Debian's packages only, into a temporary --target; a fresh interpreter
imports the package from there (not the build tree) and translates."""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


class PipInstall(unittest.TestCase):
    def test_offline_install_then_translate(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "site")
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            env.pop("PYTHONPATH", None)
            build = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                                    "--target", target, os.path.join(REPO, "python")],
                                   capture_output=True, text=True, env=env)
            self.assertEqual(build.returncode, 0, build.stdout[-3000:] + build.stderr[-3000:])
            script = ("import edgemt, sys; assert edgemt.__file__.startswith(sys.argv[1]), edgemt.__file__; "
                      "print(edgemt.Translator(sys.argv[2]).translate(['A dog runs through the snow.'])[0])")
            out = subprocess.run([sys.executable, "-c", script, target, MODEL], capture_output=True, text=True,
                                 env=dict(env, PYTHONPATH=target))
            self.assertEqual(out.returncode, 0, out.stderr[-3000:])
            self.assertEqual(out.stdout, "Ein Hund rennt durch den Schnee.\n")


if __name__ == "__main__":
    unittest.main()
