"""The int8 example model on two emulated ARM CPUs (cross builds only): the CPU the suite runs on
(EDGEMT_EMULATOR: a Cortex-A76 for arm64, whose kernels are NEON with the dot product) and qemu's
`-cpu max` (EDGEMT_EMULATOR_MAX: the dot product and i8mm, whose kernels XNNPACK then picks), each
against the x86-64 runtime's output ids on the first 50 dev sentences. `-cpu max` must match x86-64 on as
many sentences as the suite's CPU does, and on at least 49 of the 50."""
import os
import unittest

from e2e_common import EXAMPLE_INT8, MULTI30K, need_shared, run, tool

HERE = os.path.dirname(os.path.abspath(__file__))
X86_64_IDS = os.path.join(HERE, "data", "multi30k-ende.int8.x86-64.dev.ids")
SENTENCES = 50


class ArmCpus(unittest.TestCase):
    def ids_on(self, emulator):
        with open(os.path.join(MULTI30K, "reference", "dev.src.ids")) as f:
            sources = "".join(f.readlines()[:SENTENCES])
        command = emulator.split() + [tool("edgemt-translate"), "--model", EXAMPLE_INT8, "--input-ids",
                                      "--output-ids", "--batch-size", "8"]
        return run(command, stdin=sources).stdout.split("\n")[:-1]

    def test_cpu_max_matches_x86_64_as_the_suites_cpu_does(self):
        need_shared()
        suite_cpu, cpu_max = os.environ.get("EDGEMT_EMULATOR"), os.environ.get("EDGEMT_EMULATOR_MAX")
        if not (suite_cpu and cpu_max):
            raise unittest.SkipTest("EDGEMT_EMULATOR and EDGEMT_EMULATOR_MAX name the two emulated CPUs")
        with open(X86_64_IDS) as f:
            x86 = f.read().split("\n")[:SENTENCES]
        same = {}
        for name, emulator in (("suite's CPU", suite_cpu), ("-cpu max", cpu_max)):
            ids = self.ids_on(emulator)
            self.assertEqual(len(ids), SENTENCES)
            same[name] = sum(a == b for a, b in zip(ids, x86))
            print(f"{name} ({emulator}): {same[name]}/{SENTENCES} identical to x86-64")
        self.assertGreaterEqual(same["-cpu max"], same["suite's CPU"])
        self.assertGreaterEqual(same["-cpu max"], SENTENCES - 1)


if __name__ == "__main__":
    unittest.main()
