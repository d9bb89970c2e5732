"""The Python module when memory runs out: under every address-space limit from 20 to 60 MB, loading the
Multi30k example, making a translator and translating raise MemoryError with the runtime's message, or
translate as without a limit; never a crash. After a MemoryError, the same process with its limit lifted
translates. Each limit runs in a child process (RLIMIT_AS cannot be undone below its hard limit, so only
the soft one is set). x86-64 only: the limits are this platform's (address space differs elsewhere)."""
import json
import os
import platform
import subprocess
import sys
import unittest

from edgemt_package import import_edgemt

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")
LINES = ["A dog runs in the park.", "Two men are playing football on a green field."]

CHILD = r"""
import json, resource, sys
import edgemt
limit, model_path, lines = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
def run():
    return edgemt.Translator(edgemt.Model(model_path), max_beam_size=4).translate(lines, beam_size=4)
try:
    outcome = {"translations": run()}
except MemoryError as e:
    outcome = {"memory_error": str(e)}
    # Lifted: the same process translates.
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    outcome["after"] = run()
print(json.dumps(outcome))
"""


class PythonMemory(unittest.TestCase):
    def test_every_limit_raises_memory_error_or_translates(self):
        import_edgemt()
        if platform.machine() != "x86_64":
            raise unittest.SkipTest("the limits swept are x86-64's")
        expected = self.child(1 << 62)["translations"]  # no limit to speak of
        self.assertEqual(len(expected), len(LINES))
        self.assertTrue(all(expected))
        outcomes = set()
        for megabytes in range(20, 61, 2):
            where = f"under {megabytes} MB"
            outcome = self.child(megabytes << 20)
            if "memory_error" in outcome:
                self.assertTrue(outcome["memory_error"], where)  # the runtime's message
                self.assertEqual(outcome["after"], expected, where)
                outcomes.add("memory_error")
            else:
                self.assertEqual(outcome["translations"], expected, where)
                outcomes.add("translated")
        # The sweep crosses from running out to translating.
        self.assertEqual(outcomes, {"memory_error", "translated"})

    def child(self, limit):
        result = subprocess.run([sys.executable, "-c", CHILD, str(limit), MODEL, json.dumps(LINES)],
                                capture_output=True, text=True, env=os.environ.copy())
        self.assertEqual(result.returncode, 0, f"limit {limit}: exit {result.returncode}\n{result.stderr[-2000:]}")
        return json.loads(result.stdout)

if __name__ == "__main__":
    unittest.main()
