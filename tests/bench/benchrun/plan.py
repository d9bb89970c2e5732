"""How many sentences and repetitions each measurement takes (the full run is sized for <= 20 min on the
2-core machine, the comparison with a baseline for ~5 min more)."""

# Per model: EdgeMT's batch-1 sources (int8, float32; 0 = all), its batch-32 sources (int8, float32; None: the
# trained model is measured at batch 1 only), PyTorch's sources at 1 and 2 threads (int8, then float32; 0 = all)
# and the sources of the alternating 1 vs 2 thread runs (int8, float32).
SIZES = dict(
    quick=dict(multi30k=((40, 40), None, ((10, 10), (10, 10)), (20, 10)),
               tiny=((8, 8), (32, 32), ((3, 3), (3, 3)), (4, 2)),
               base=((4, 2), (32, 32), ((1, 1), (1, 1)), (2, 1))),
    full=dict(multi30k=((0, 0), None, ((0, 100), (100, 100)), (250, 100)),
              tiny=((0, 0), (96, 96), ((0, 0), (0, 0)), (50, 20)),
              base=((0, 40), (96, 64), ((20, 20), (20, 20)), (10, 5))))


def _per_dtype(pair):
    return dict(int8=pair[0], float32=pair[1])


def plan(quick, repeat):
    """limit: EdgeMT batch-1 sources per dtype (0 = all); batch32: sources at batch 32; torch: PyTorch sources
    per dtype at (1, 2) threads (0 = all); pairs: sources of the alternating 1 vs 2 thread runs."""
    p = dict(repeat=1, profile_passes=1, load_runs=2, pair_rounds=1) if quick else \
        dict(repeat=repeat, profile_passes=1, load_runs=5, pair_rounds=5)
    for name, (limit, batch32, torch, pairs) in SIZES["quick" if quick else "full"].items():
        p[name] = dict(limit=_per_dtype(limit), torch=_per_dtype(torch), pairs=_per_dtype(pairs))
        if batch32:
            p[name]["batch32"] = _per_dtype(batch32)
    return p


def baseline_plan(quick, rounds):
    """Sources per model for the comparison (0 = all): b1 at batch 1, b32 at batch 32; rss: sources that
    edgemt-translate translates for the peak RSS; repeat: timed passes per process (the rounds repeat too)."""
    sizes = dict(multi30k=(20, 32), tiny=(4, 32), base=(2, 32)) if quick else \
        dict(multi30k=(0, 128), tiny=(100, 64), base=(20, 32))
    p = dict(repeat=1 if quick else 2, rounds=rounds, rss_limit=4 if quick else 10)
    p.update({name: dict(b1=b1, b32=b32) for name, (b1, b32) in sizes.items()})
    return p
