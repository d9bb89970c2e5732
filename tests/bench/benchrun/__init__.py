"""run_benchmarks.py's full run, one idea per module.

    build       configuring and building the measured tools (Release)
    plan        how many sentences and repetitions each measurement takes
    measure     the measurement of a configuration: edgemt-bench, edgemt-translate's peak RSS, load times,
                1 vs 2 threads in alternating processes
    torch_ref   the PyTorch reference runs (no KV cache) and their BLAS
    quality     BLEU and agreement of the outputs
    xnnpack     XNNPACK alone: 1 vs 2 threads, and the decoder step's floor
    baseline    --baseline REV: this tree against an earlier commit, in alternating processes
    goals       the goals, judged on the measured figures
    full_run    the whole run, in order, into BENCHMARKS.json and BENCHMARKS.md
"""
