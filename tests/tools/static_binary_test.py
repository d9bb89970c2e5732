#!/usr/bin/env python3
"""One file to copy to a device: what edgemt-translate and libedgemt.so need
at run time, and a fully static edgemt-translate.

  static_binary_test.py --readelf R --dynamic CLI --static CLI_STATIC
      [--library libedgemt.so] [--emulator=qemu-aarch64,-L,/usr/aarch64-linux-gnu,-cpu,cortex-a76]
      [--static-emulator=qemu-aarch64,-cpu,cortex-a76] --model MODEL.edgemt

Checks:
- CLI and libedgemt.so need only libc, libm, libstdc++ and libgcc_s (and the
  dynamic loader): SentencePiece, XNNPACK & co. are inside;
- CLI_STATIC has no program interpreter and no dynamic section (ldd: "not a
  dynamic executable");
- CLI_STATIC translates five sentences exactly as CLI. In a cross build the
  dynamic one runs through the emulator with the cross compiler's runtime
  (-L); the static one through the toolchain's EDGEMT_STATIC_EMULATOR, the
  same CPU with no -L: no library of the build machine or of the toolchain
  is there to help it.
The whole Multi30k dev set, static against dynamic, is e2e_multi30k_int8's
test_the_static_cli_translates_identically (it has the dynamic CLI's output
already, so the dev set is translated once more, not twice).
"""
import argparse
import os
import re
import subprocess
import sys

ALLOWED_NEEDED = re.compile(r"^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")
SENTENCES = [
    "A man is riding a bicycle down the street.",
    "Two children are playing in the park.",
    "A woman in a red dress is singing on stage.",
    "A dog runs through the snow.",
    "Several people are sitting at a table in a restaurant.",
]


def readelf(tool, flag, path):
    return subprocess.run([tool, flag, "--wide", path], check=True, capture_output=True, text=True).stdout


def check_needed(tool, path):
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf(tool, "-d", path))
    print("%s needs: %s" % (os.path.basename(path), " ".join(needed)))
    if not needed:
        return ["%s: no NEEDED entries: not the dynamic build?" % path]
    return ["%s needs %s" % (path, name) for name in needed if not ALLOWED_NEEDED.match(name)]


def check_static(tool, path):
    headers = readelf(tool, "-l", path)
    problems = []
    if re.search(r"^\s*INTERP\s", headers, re.M):
        problems.append("%s has a program interpreter (it is dynamic)" % path)
    if re.search(r"^\s*DYNAMIC\s", headers, re.M):
        problems.append("%s has a dynamic section" % path)
    print("%s: %s" % (os.path.basename(path), "static" if not problems else "NOT static"))
    return problems


def translate(command, model, text):
    proc = subprocess.run(command + ["--model", model, "--threads", "1"], input=text, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(command), proc.returncode, proc.stderr[-2000:]))
    return proc.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--readelf", required=True)
    parser.add_argument("--dynamic", required=True)
    parser.add_argument("--static", required=True)
    parser.add_argument("--library")
    parser.add_argument("--emulator", default="")
    parser.add_argument("--static-emulator", default="")
    parser.add_argument("--model", required=True)
    args = parser.parse_args()

    problems = check_needed(args.readelf, args.dynamic)
    if args.library:
        problems += check_needed(args.readelf, args.library)
    problems += check_static(args.readelf, args.static)

    emulator = [word for word in args.emulator.split(",") if word]
    static_emulator = [word for word in args.static_emulator.split(",") if word]
    text = "\n".join(SENTENCES) + "\n"
    lines = text.count("\n")
    dynamic_out = translate(emulator + [args.dynamic], args.model, text)
    static_out = translate(static_emulator + [args.static], args.model, text)
    print("%d lines: dynamic %d output lines, static %d" % (lines, dynamic_out.count("\n"), static_out.count("\n")))
    if dynamic_out.count("\n") != lines:
        problems.append("the dynamic CLI wrote %d lines for %d" % (dynamic_out.count("\n"), lines))
    if static_out != dynamic_out:
        differ = sum(a != b for a, b in zip(static_out.splitlines(), dynamic_out.splitlines()))
        problems.append("the static CLI's translations differ from the dynamic one's on %d lines" % differ)
    for problem in problems:
        print("FAILED: " + problem)
    if problems:
        return 1
    print("identical on all %d lines" % lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
