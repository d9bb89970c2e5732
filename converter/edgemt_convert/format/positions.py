"""Sinusoidal position tables and the check that a checkpoint's buffer is one."""
import math

import numpy as np

LAYOUTS = ("interleaved", "halves", "opennmt", "marian")


def _table(angle, d_model, layout):
    """[positions, d_model] float32: sin and cos of the float64 angles [positions, d_model / 2], placed as
    the layout says, then rounded."""
    pe = np.zeros((angle.shape[0], d_model), dtype=np.float64)
    if layout == "interleaved":
        pe[:, 0::2] = np.sin(angle)
        pe[:, 1::2] = np.cos(angle)
    elif layout in ("halves", "opennmt", "marian"):
        pe[:, : d_model // 2] = np.sin(angle)
        pe[:, d_model // 2:] = np.cos(angle)
    else:
        raise ValueError("unknown position layout %r" % layout)
    return pe.astype(np.float32)


def sinusoid_table(max_positions, d_model, layout):
    """[max_positions, d_model] float32, computed in float64 then rounded.

    interleaved: pe[p, 2i] = sin(p w_i), pe[p, 2i+1] = cos(p w_i)
    halves:      pe[p, i]  = sin(p w_i), pe[p, d/2 + i] = cos(p w_i)
    with w_i = exp(-2i ln(10000) / d_model);
    opennmt:     pe[p, i]  = sin((p + 1) v_i), pe[p, d/2 + i] = cos((p + 1) v_i)
    with v_i = exp(-i ln(10000) / (d/2 - 1)) (OpenNMT-tf's and CTranslate2's
    table: positions count from 1); marian: opennmt's frequencies from
    position 0 (Marian's own). This is the exact table; training
    code, CTranslate2 and the runtime compute it in float32
    (runtime_sinusoid_table) and differ from it by up to ~max_positions *
    2^-23 (see matches_sinusoid)."""
    pos = np.arange(max_positions, dtype=np.float64)[:, None]
    w = np.exp(np.arange(0, d_model, 2, dtype=np.float64) * (-math.log(10000.0) / d_model))
    if layout in ("opennmt", "marian"):
        half = d_model // 2
        pos = pos + (1 if layout == "opennmt" else 0)
        w = np.exp(np.arange(half, dtype=np.float64) * (-math.log(10000.0) / max(half - 1, 1)))
    return _table(pos * w, d_model, layout)


def runtime_sinusoid_table(max_positions, d_model, layout):
    """The table the runtime computes (runtime/src/ops/embedding.cc), as training recipes and CTranslate2
    do: the frequencies and the angle p * w_i in float32, then sin and cos of that float32 angle (exp, sin
    and cos evaluated in float64 and rounded, as glibc's expf, sinf and cosf are all but always). The
    reference model (reference/model.py) uses it, so that it computes what a converted file computes: at
    position 511 the angle's rounding moves a value by up to ~3e-5 from sinusoid_table's (a 512-id
    source's encoder output by 5e-6 of its largest value, beyond float32 summation's 2e-6)."""
    if layout in ("opennmt", "marian"):
        half = d_model // 2
        step = -(np.float32(math.log(10000.0)) / np.float32(max(half - 1, 1)))   # all float32, as CTranslate2, Marian
        w = np.exp((np.arange(half, dtype=np.float32) * step).astype(np.float64)).astype(np.float32)
        first = 1 if layout == "opennmt" else 0
        pos = np.arange(first, max_positions + first, dtype=np.float32)[:, None]
    else:
        step = np.float32(-math.log(10000.0) / d_model)                         # the step in double, rounded
        w = np.exp((np.arange(0, d_model, 2, dtype=np.float32) * step).astype(np.float64)).astype(np.float32)
        pos = np.arange(max_positions, dtype=np.float32)[:, None]
    return _table((pos * w).astype(np.float32).astype(np.float64), d_model, layout)


def sinusoid_tolerance(max_positions):
    """Largest difference accepted between a stored table and the exact one.

    A float32 training recipe rounds the angle p * w_i (up to max_positions
    radians) to float32, an error of up to ~p * 2^-24 per rounding, which
    sin/cos pass on. The shared 256-position model differs by 1.4e-5, a
    512-position one by 4.7e-5. A learned table differs by orders of
    magnitude more."""
    return 1e-5 + 4.0 * max_positions * 2.0 ** -23


def matches_sinusoid(table, layout):
    """(bool, max abs difference) of a [L, d] table against the exact sinusoid."""
    exact = sinusoid_table(table.shape[0], table.shape[1], layout)
    diff = float(np.max(np.abs(table.astype(np.float64) - exact))) if table.size else 0.0
    return diff <= sinusoid_tolerance(table.shape[0]), diff
