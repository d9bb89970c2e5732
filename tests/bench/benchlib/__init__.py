"""The benchmark harness: what every script in tests/bench uses, one idea per module.

    paths        where things are (the repository, ../shared, build/bin, the model cache)
    log          progress lines on stderr
    load         the machine's load: other processes' CPU, waiting for idle, the CPU lock
    processes    running a measured child: wall time, peak RSS, other load, the command log
    alternation  configurations alternated round by round (A B A B ...)
    stats        medians, ranges and ratios
    machine      machine, commit and build metadata of a run
    models       the benchmark models: conversion, cache, the fixed-length sources
    edgemt_bench one build/bin/edgemt-bench process and its JSON
    outputs      comparing translations: identical lines, token agreement, BLEU
    ctranslate2  the peer, CTranslate2 4.8.1 (../shared/bench/ct2): its CLI and Python API
    markdown     number formatting, tables, command lists
    section      a script's section: Markdown for people, a record for BENCHMARKS.json
"""
