"""`python3 -m pip install --no-build-isolation ./python`, offline (no
index) with Debian's packages only, into a temporary --target: setup.py
builds the runtime and the module from scratch in a temporary CMake
directory (minutes on 2 cores). A fresh interpreter then imports the package
from there, not from the build tree, and translates with the example model."""
import os
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


class PipInstall(unittest.TestCase):
    def test_offline_install_then_translate(self):
        if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
            self.skipTest("pip is not installed for %s (Debian: python3-pip)" % sys.executable)
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "site")
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                       EDGEMT_CMAKE_BUILD_DIR=os.path.join(tmp, "cmake"))
            env.pop("PYTHONPATH", None)
            start = time.perf_counter()
            build = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                                    "--target", target, os.path.join(REPO, "python")],
                                   capture_output=True, text=True, env=env)
            print("pip install: %.0f s" % (time.perf_counter() - start))
            self.assertEqual(build.returncode, 0, build.stdout[-3000:] + build.stderr[-3000:])
            package = os.path.join(target, "edgemt")
            for name in ("__init__.py", "__init__.pyi", "py.typed"):
                self.assertTrue(os.path.isfile(os.path.join(package, name)), name)
            script = ("import edgemt, sys; assert edgemt.__file__.startswith(sys.argv[1]), edgemt.__file__; "
                      "print(edgemt.Translator(sys.argv[2]).translate(['A dog runs through the snow.'])[0])")
            out = subprocess.run([sys.executable, "-c", script, target, MODEL], capture_output=True, text=True,
                                 env=dict(env, PYTHONPATH=target), cwd=tmp)
            self.assertEqual(out.returncode, 0, out.stderr[-3000:])
            self.assertEqual(out.stdout, "Ein Hund rennt durch den Schnee.\n")


if __name__ == "__main__":
    unittest.main()
