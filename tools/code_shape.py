#!/usr/bin/env python3
"""Checks the code's shape (issue 26): no runtime source file over 450
lines, and no function over 80 lines in runtime/ (C++) or converter/
(Python). Prints every breach and exits 1 when there is one.

    tools/code_shape.py [--max-file-lines N] [--max-function-lines N]

C++ functions are found by their braces: a block opened after a closing
parenthesis (and not by a control statement, a namespace, a class or an
initializer) at namespace or class level; a lambda counts as part of the
function around it. Python functions come from the ast; a nested function
counts in its own right and as part of its parent.
"""
import argparse
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CXX_SUFFIXES = (".cc", ".h", ".cpp", ".hpp", ".c")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else|namespace|class|struct|union|enum)\b[^;]*$")


def _strip(text):
    """The text with comments, strings and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def cxx_functions(path):
    """(name, first line, last line) of each function defined at namespace or class level."""
    text = _strip(open(path, encoding="utf-8", errors="replace").read())
    found = []
    stack = []  # per open brace: "function", "scope" (namespace/class/extern) or "other"
    head_start = 0  # where the text that a '{' closes starts
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            head = text[head_start:i]
            inside_function = any(entry[0] == "function" for entry in stack)
            kind = "other"
            if not inside_function:
                stripped = head.strip()
                if re.search(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?(->[^{]*)?$", stripped) and \
                        not CONTROL.search(stripped.split("\n")[-1]) and not stripped.endswith("]"):
                    kind = "function"
                elif re.search(r"\b(namespace|class|struct|union)\b", stripped) or stripped.startswith("extern"):
                    kind = "scope"
            if kind == "function":
                name = re.findall(r"([~\w:]+)\s*\(", head)
                stack.append(("function", name[0] if name else "?", line))
            else:
                stack.append((kind, None, line))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, name, first = stack.pop()
                if kind == "function":
                    found.append((name, first, line))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def python_functions(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield node.name, first, node.end_lineno


def sources(folder, suffixes):
    for base, dirs, files in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "build"))
        for name in sorted(files):
            if name.endswith(suffixes):
                yield os.path.join(base, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-file-lines", type=int, default=450)
    ap.add_argument("--max-function-lines", type=int, default=80)
    args = ap.parse_args()
    breaches = []
    checked_files = checked_functions = 0
    for path in sources("runtime", CXX_SUFFIXES):
        rel = os.path.relpath(path, ROOT)
        lines = sum(1 for _ in open(path, encoding="utf-8", errors="replace"))
        checked_files += 1
        if lines > args.max_file_lines:
            breaches.append("%s: %d lines (at most %d)" % (rel, lines, args.max_file_lines))
        for name, first, last in cxx_functions(path):
            checked_functions += 1
            if last - first + 1 > args.max_function_lines:
                breaches.append("%s:%d: %s is %d lines (at most %d)" % (rel, first, name, last - first + 1,
                                                                         args.max_function_lines))
    for path in sources("converter", (".py",)):
        rel = os.path.relpath(path, ROOT)
        checked_files += 1
        for name, first, last in python_functions(path):
            checked_functions += 1
            if last - first + 1 > args.max_function_lines:
                breaches.append("%s:%d: %s is %d lines (at most %d)" % (rel, first, name, last - first + 1,
                                                                         args.max_function_lines))
    for breach in breaches:
        print(breach)
    print("code_shape: %d files, %d functions checked; %d over the limits" % (checked_files, checked_functions,
                                                                             len(breaches)))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
