#!/usr/bin/env python3
"""Checks the runtime's layers (issue 54). Prints every breach and exits 1
when there is one.

    tools/layer_check.py [--root DIR]

runtime/src has one folder per concept, and the folders are layers: each
may include only its own files and those of the folders before it in LAYERS
(text never includes document or html; the engine, translator and below,
never includes text or the tokenizer). Every file is in one of them;
includes of the runtime's own headers name them from runtime/src
("ops/linear.h"), so that the rule reads off the line itself. The files'
includes form no circle, and the public headers (runtime/include/edgemt)
include only each other. docs/architecture.md names every folder and every
runtime file (as folder/name, without the suffix of a .h/.cc pair).
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Lowest first: a folder includes only itself and the folders before it.
LAYERS = [
    "base",        # status, fixed arrays, the thread pool
    "memory",      # the activation arena's layout, pages, mapped files, XNNPACK's allocator
    "model_file",  # reading and verifying the .edgemt file: config, weights, shortlist section
    "packing",     # XNNPACK-layout weights: their store, regions and the packed file on disk
    "ops",         # kernels on buffers
    "model",       # the loaded Model: its bytes, weights and packing
    "shortlist",   # vocabulary shortlists: selection and the shortlisted output layer
    "decoding",    # greedy, beam, sampling, scoring on logits
    "workspace",   # every activation buffer of a translator, planned in one arena
    "layers",      # encoder and decoder
    "translator",  # the engine: Translator and its memory plan
    "tokenizer",   # text to ids and back
    "text",        # TextTranslator: texts, sentences, the translation cache
    "document",    # documents split into sentences and put back together
    "html",        # HTML pages
    "language_id", # which language a text is in (CLD2)
    "catalog",     # model sets: routes through a pivot, models opened within a budget
    "c_api",       # edgemt/edgemt.h
]
SUFFIXES = (".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def runtime_files(src):
    for base, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                yield os.path.relpath(os.path.join(base, name), src).replace(os.sep, "/")


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def find_circle(graph):
    """One circle of the include graph as a list of files, or None."""
    state = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif not state.get(child):
                state[child] = 1
                stack.append((child, iter(sorted(graph.get(child, ())))))
                path.append(child)
    return None


def check(root):
    src = os.path.join(root, "runtime", "src")
    public = os.path.join(root, "runtime", "include")
    breaches = []
    rank = {folder: i for i, folder in enumerate(LAYERS)}
    files = list(runtime_files(src))
    graph = {}
    for rel in files:
        folder = rel.split("/")[0] if "/" in rel else None
        if folder not in rank:
            breaches.append("runtime/src/%s: not in a layer's folder (tools/layer_check.py LAYERS)" % rel)
            continue
        graph[rel] = set()
        for name in includes(os.path.join(src, rel)):
            if os.path.exists(os.path.join(public, name)) or name == "edgemt_generated.h":
                continue  # the public headers and the schema's, below every layer
            if not os.path.exists(os.path.join(src, name)):
                local = os.path.join(os.path.dirname(os.path.join(src, rel)), name)
                if os.path.exists(local):
                    breaches.append("runtime/src/%s: includes \"%s\": name it from runtime/src (\"%s\")" %
                                    (rel, name, os.path.relpath(local, src).replace(os.sep, "/")))
                continue  # a system or third-party header
            target = name.split("/")[0] if "/" in name else None
            if target not in rank:
                breaches.append("runtime/src/%s: includes \"%s\", which is in no layer" % (rel, name))
                continue
            graph[rel].add(name)
            if rank[target] > rank[folder]:
                breaches.append("runtime/src/%s: includes \"%s\": %s/ is above %s/ (an include runs up)" %
                                (rel, name, target, folder))
    circle = find_circle(graph)
    if circle:
        breaches.append("runtime/src: includes run in a circle: " + " -> ".join(circle))
    for base, _, names in os.walk(public):
        for name in sorted(names):
            path = os.path.join(base, name)
            for header in includes(path):
                if not os.path.exists(os.path.join(public, header)):
                    breaches.append("%s: includes \"%s\", which is no public header" %
                                    (os.path.relpath(path, root), header))
    architecture = os.path.join(root, "docs", "architecture.md")
    doc = open(architecture, encoding="utf-8").read() if os.path.exists(architecture) else ""
    for folder in LAYERS:
        if "%s/" % folder not in doc:
            breaches.append("docs/architecture.md: does not name the folder %s/" % folder)
    for rel in files:
        stem = rel.rsplit(".", 1)[0]
        if not re.search(r"(?<![\w/])%s(?![\w])" % re.escape(stem), doc):
            breaches.append("docs/architecture.md: does not name runtime/src/%s" % rel)
    return breaches, len(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=ROOT, help="the repository to check (default: this one)")
    args = ap.parse_args()
    breaches, count = check(args.root)
    for breach in breaches:
        print(breach)
    print("layer_check: %d runtime files in %d layers; %d breaches" % (count, len(LAYERS), len(breaches)))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
