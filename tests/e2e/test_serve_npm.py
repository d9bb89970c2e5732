"""LibreTranslate clients from the npm registry, unmodified, against
edgemt-serve: libretranslate 1.0.1 (its translate call, which lists the
languages first) and libretranslate-ts 0.5.12 (languages, detect, translate
with alternatives). They are installed once into ~/.cache/edgemt (npm's
registry must be reachable then), never into the repository."""
import json
import os
import shutil
import subprocess
import unittest

from e2e_common import REPO, run
from model_set import ENGLISH, GERMAN, make_model_set
from test_serve import Server, cli

CLIENTS = {"libretranslate": "1.0.1", "libretranslate-ts": "0.5.12"}
SCRIPT = os.path.join(REPO, "tests", "e2e", "npm_clients", "clients.mjs")


def install_clients():
    folder = os.path.join(os.path.expanduser("~"), ".cache", "edgemt", "npm-libretranslate-clients")
    stamp = os.path.join(folder, "installed.json")
    if os.path.exists(stamp) and json.load(open(stamp)) == CLIENTS:
        return folder
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "package.json"), "w") as f:
        json.dump({"name": "edgemt-libretranslate-clients", "private": True}, f)
    result = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                             *("%s@%s" % kv for kv in CLIENTS.items())], cwd=folder, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError("npm install of the clients failed (is the npm registry reachable?):\n" + result.stderr)
    with open(stamp, "w") as f:
        json.dump(CLIENTS, f)
    return folder


class NpmClients(unittest.TestCase):
    def test_real_clients_translate_list_and_detect(self):
        if shutil.which("node") is None:
            raise AssertionError("node is missing (tools/install-deps.sh installs it)")
        clients = install_clients()
        folder = make_model_set()
        server = Server(folder)
        try:
            env = dict(os.environ, CLIENTS_DIR=clients)
            out = subprocess.run(["node", SCRIPT, "http://127.0.0.1:%d" % server.port], capture_output=True, text=True,
                                 env=env, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            got = json.loads(out.stdout)
            self.assertEqual(got["plain"], cli(folder, "en", "de", "A man is riding a bike.\n").strip())
            self.assertEqual(got["array"], cli(folder, "en", "de", "A dog runs.\nTwo dogs play in the snow.\n").splitlines())
            self.assertEqual(got["auto"], cli(folder, "de", "en", GERMAN[1] + "\n").strip())
            self.assertEqual(got["unknown"], "This language was not found/does not exist.")
            self.assertEqual(sorted(entry["code"] for entry in got["languages"]), ["ar", "de", "en", "fr"])
            self.assertEqual(got["detect"]["language"], "de")
            self.assertEqual(got["detect"]["status"], 200)
            self.assertEqual(got["ts"]["status"], 200)
            self.assertEqual(got["ts"]["translatedText"], cli(folder, "en", "de", ENGLISH[2] + "\n").strip())
            self.assertEqual(len(got["ts"]["alternatives"]), 2)
            self.assertEqual(got["tsError"]["error"], "zz is not supported")
        finally:
            self.assertEqual(server.stop(), 0)
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
