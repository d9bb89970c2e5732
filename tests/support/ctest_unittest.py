"""Runs a Python unittest module as one CTest test, so that CTest sees what
happened: exit 0 when every test ran and passed, 1 on a failure or when no
test ran, 77 (the tests' SKIP_RETURN_CODE: "Skipped", never "Passed") when
any test was skipped, with each skip and its reason on stdout.

    ctest_unittest.py MODULE [--only NAME]... [--exclude NAME]...

MODULE is imported from the working directory. --only keeps the test
methods of that name, --exclude drops them; a NAME that matches no test is an
error, so a renamed test cannot drop out of the suite unnoticed.
"""
import argparse
import os
import sys
import time
import unittest

# Under ASan (python/CMakeLists.txt) the sanitizer runtime is preloaded into
# this interpreter for the module; the programs the tests start are
# instrumented themselves and must not get a second copy.
os.environ.pop("LD_PRELOAD", None)

SKIPPED = 77


def tests_of(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from tests_of(item)
        else:
            yield item


def method_name(test):
    return getattr(test, "_testMethodName", str(test))


class TimedResult(unittest.TextTestResult):
    """Keeps each test's seconds, its class's set-up counted in its first
    test: what the suite's time budget (tests/README.md) is read from."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.last = time.monotonic()
        self.seconds = []

    def stopTest(self, test):
        super().stopTest(test)
        now = time.monotonic()
        self.seconds.append((now - self.last, method_name(test)))
        self.last = now


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("module")
    ap.add_argument("--only", action="append", default=[], metavar="NAME")
    ap.add_argument("--exclude", action="append", default=[], metavar="NAME")
    args = ap.parse_args()
    sys.path.insert(0, ".")
    loaded = list(tests_of(unittest.defaultTestLoader.loadTestsFromName(args.module)))
    names = {method_name(t) for t in loaded}
    unknown = [n for n in args.only + args.exclude if n not in names]
    if unknown:
        print("ctest_unittest.py: %s: no test named %s" % (args.module, ", ".join(unknown)))
        return 1
    selected = [t for t in loaded if (not args.only or method_name(t) in args.only)
                and method_name(t) not in args.exclude]
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout, resultclass=TimedResult).run(
        unittest.TestSuite(selected))
    print("ctest_unittest.py: seconds per test, the longest first:",
          ", ".join("%s %.1f" % (name, seconds) for seconds, name in sorted(result.seconds, reverse=True)))
    if not result.wasSuccessful():
        return 1
    # A module-level SkipTest (setUpModule) shows up as one skipped "test".
    if result.skipped:
        print("\nctest_unittest.py: %d skipped (tests run: %d), so CTest reports this test as skipped:"
              % (len(result.skipped), result.testsRun))
        for test, reason in result.skipped:
            print("  %s: %s" % (test, reason))
        return SKIPPED
    if result.testsRun == 0:
        print("ctest_unittest.py: %s ran no test" % args.module)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
