"""Medians, ranges and ratios of repeated measurements."""
import statistics


def median(values):
    return statistics.median(list(values))


def median_of(runs, key):
    """The median of one field over a list of runs (dicts)."""
    return statistics.median(r[key] for r in runs)


def spread(values, digits=None):
    """dict(median, min, max) of the values, rounded to `digits` when given."""
    values = list(values)
    out = dict(median=statistics.median(values), min=min(values), max=max(values))
    return {k: round(v, digits) for k, v in out.items()} if digits is not None else out


def ratios(numerators, denominators):
    """Per-round ratios a_i / b_i of two equally long lists."""
    return [a / b for a, b in zip(numerators, denominators)]


def fastest(rows, key="wall_s"):
    """The row with the smallest `key` (None when there is none)."""
    rows = list(rows)
    return min(rows, key=lambda r: r[key]) if rows else None
