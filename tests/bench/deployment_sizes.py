#!/usr/bin/env python3
"""What a device gets: the stripped size of edgemt-translate (dynamic and
fully static) and of libedgemt.so, and the shared libraries each needs, for
every build directory given (x86-64, arm64, armhf). Prints a Markdown table;
run_benchmarks.py uses the same functions for BENCHMARKS.md.

    tests/bench/deployment_sizes.py build build-arm64 build-armhf
    tests/bench/deployment_sizes.py --md /tmp/deployment.md build build-arm64 build-armhf
    tests/bench/run_benchmarks.py --report-only --attach-section /tmp/deployment.md

Each build needs the targets edgemt-translate, edgemt-translate-static (any
build with tests) and edgemt_shared. The cross builds are stripped with
their own binutils (aarch64-linux-gnu-strip, arm-linux-gnueabihf-strip).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import machine  # noqa: E402
from benchlib.markdown import table  # noqa: E402
from benchlib.section import Section  # noqa: E402

ARTIFACTS = (("edgemt-translate", "bin/edgemt-translate"),
             ("edgemt-translate, -DEDGEMT_STATIC_BINARY=ON", "bin/edgemt-translate-static"),
             ("libedgemt.so (the C API)", "lib/libedgemt.so"))
STRIP = {"arm64": "aarch64-linux-gnu-strip", "armhf": "arm-linux-gnueabihf-strip"}
TARGET = {"AArch64": "arm64", "ARM": "armhf"}  # readelf's Machine -> Debian's name; else x86-64
COLUMNS = ["target", "file", "stripped MB", "shared libraries it needs"]


def target_of(path):
    header = subprocess.run(["readelf", "-h", path], capture_output=True, text=True, check=True).stdout
    name = re.search(r"Machine:\s+(.*)", header).group(1).strip()
    return TARGET.get(name, "x86-64" if "X86-64" in name else name)


def measure(build_dir):
    """{label: dict(machine, bytes, stripped_bytes, needed)} for the artifacts present in build_dir."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, relative in ARTIFACTS:
            path = os.path.join(build_dir, relative)
            if not os.path.exists(path):
                continue
            arch = target_of(path)
            stripped = os.path.join(tmp, "stripped")
            strip = STRIP.get(arch, "strip")
            subprocess.run([strip, "-o", stripped, path], check=True)
            dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
            needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
            out[label] = dict(machine=arch, bytes=os.path.getsize(path), stripped_bytes=os.path.getsize(stripped),
                              needed=needed)
    return out


def rows(results):
    """results: {build_dir: measure(build_dir)} -> the rows of the table."""
    return [[item["machine"], label, "%.2f" % (item["stripped_bytes"] / 1e6),
             ", ".join(item["needed"]) if item["needed"] else "none (static)"]
            for sizes in results.values() for label, item in sizes.items()]


def markdown(results):
    """results: {build_dir: measure(build_dir)} -> lines of a Markdown table."""
    return table(COLUMNS, rows(results))


def section(results):
    """A BENCHMARKS.md section of its own (run_benchmarks.py --report-only --attach-section)."""
    git = machine.git_info()
    compiler = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    date = machine.utc_now()
    s = Section("deployment", "Deployment: what a device gets (tests/bench/deployment_sizes.py)", dict(
        script="tests/bench/deployment_sizes.py", command=" ".join(["tests/bench/deployment_sizes.py"] + sys.argv[1:]),
        date=date, date_is="start", commit=git["short"]))
    s.text("Measured %s at %s; Release builds (%s and Debian's cross compilers of the same version), stripped with "
           "each target's `strip`. XNNPACK, pthreadpool, cpuinfo and SentencePiece (with its protobuf-lite) are "
           "inside every file; the static CLI carries glibc and libstdc++ too." % (date, git["short"], compiler))
    return s.table(COLUMNS, rows(results))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--md", help="write a BENCHMARKS.md section to this file")
    parser.add_argument("build_dirs", nargs="*", default=["build"])
    args = parser.parse_args()
    results = {d: measure(d) for d in args.build_dirs}
    print("\n".join(markdown(results)))
    if args.md:
        with open(args.md, "w") as f:
            f.write(section(results).markdown())


if __name__ == "__main__":
    main()
