"""BENCHMARKS.md, written from BENCHMARKS.json alone, one idea per module.

    runs      the runs the JSON holds (main, baseline, peer, separate scripts): what, when, at which commit
    headline  the opening table: EdgeMT against CTranslate2 4.8.1, one row per configuration
    main_run  the main run: its machine, method and goals
    profile   where the time goes: the decoder step against its XNNPACK floor
    accuracy  BLEU and agreement of the outputs; EdgeMT against the PyTorch reference
    baseline  this tree against the previous build (--baseline)
    separate  the sections measured by the separate scripts, in their short form (none for a run marked as history)
    commands  how to reproduce each run's figures, and where the JSON keeps every command
    writer    the page, in order, and a pointer to tests/bench/ANALYSIS.md (the analysis and the history)
    update    --report-only: attach a section or the peer's run, mark runs as history, then write
"""
