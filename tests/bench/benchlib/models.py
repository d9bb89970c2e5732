"""The benchmark models, converted once and cached in build/bench-cache/<model>/.

  multi30k  the trained example (../shared/models/multi30k-ende); int8 is models/multi30k-ende.int8.edgemt
            when it is committed in the format this tree reads, else a conversion; float32 is converted
  tiny      random checkpoint (make_random_checkpoint.py --preset tiny)
  base      random checkpoint (--preset base)

A conversion is keyed by the converter's sources (a changed converter reconverts).
"""
import hashlib
import json
import os
import re
import struct

from .log import log
from .paths import CACHE, COMMITTED_INT8, MULTI30K, PYTHON, REPO, SHARED, rel
from .processes import COMMANDS, run_child, show

RANDOM_CHECKPOINT = os.path.join(SHARED, "bench", "make_random_checkpoint.py")


def converter_stamp():
    h = hashlib.sha256()
    root = os.path.join(REPO, "converter")
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "__pycache__"))
        for name in sorted(filenames):
            if name.endswith(".pyc"):
                continue
            path = os.path.join(dirpath, name)
            h.update(os.path.relpath(path, root).encode())
            with open(path, "rb") as f:
                h.update(f.read())
    with open(RANDOM_CHECKPOINT, "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def schema_format_major(root=REPO):
    """The model format major version a tree reads: the first line of its schema/edgemt.fbs."""
    with open(os.path.join(root, "schema", "edgemt.fbs")) as f:
        m = re.search(r"format version (\d+)\.\d+", f.readline())
    return int(m.group(1)) if m else None


def model_format_major(path):
    """Model.format_major of a model file (the root table's first field), or None if unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 16)
        root = struct.unpack_from("<I", data, 0)[0]
        vtable = root - struct.unpack_from("<i", data, root)[0]
        if struct.unpack_from("<H", data, vtable)[0] < 6:
            return 0
        offset = struct.unpack_from("<H", data, vtable + 4)[0]
        return struct.unpack_from("<H", data, root + offset)[0] if offset else 0
    except (OSError, struct.error):
        return None


def converter_cli():
    cli = os.path.join(REPO, "converter", "edgemt-convert")
    if not os.path.exists(cli):
        raise SystemExit("converter/edgemt-convert is missing: the converter CLI has not landed (git log)")
    return cli


def convert(checkpoint, out, dtype, stamp, extra=(), cli=None):
    """Converts (with `cli`, default this tree's converter) unless `out` exists with the same stamp."""
    cli = cli or converter_cli()
    cmd = [cli, checkpoint, "--out", out, "--dtype", dtype, "--quiet"] + list(extra)
    stamp = stamp + " " + " ".join([dtype] + list(extra))
    stamp_file = out + ".stamp"
    if os.path.exists(out) and os.path.exists(stamp_file):
        with open(stamp_file) as f:
            if f.read().strip() == stamp:
                log("cached: %s" % rel(out))
                COMMANDS.append("(cached) " + show(cmd))
                return dict(cached=True)
    log(show(cmd))
    r = run_child(cmd)
    with open(stamp_file, "w") as f:
        f.write(stamp + "\n")
    log("converted in %.1f s" % r["wall_s"])
    return dict(cached=False, seconds=round(r["wall_s"], 1), summary=(r["out"] + r["err"])[-2000:])


def _multi30k(cache_dir, stamp):
    d = os.path.join(cache_dir, "multi30k")
    os.makedirs(d, exist_ok=True)
    m = dict(kind="trained", checkpoint=MULTI30K, files={}, conversions={})
    committed = model_format_major(COMMITTED_INT8) if os.path.exists(COMMITTED_INT8) else None
    if committed is not None and committed == schema_format_major():
        m["files"]["int8"], m["int8_source"] = COMMITTED_INT8, "committed"
    else:
        if committed is not None:
            log("models/multi30k-ende.int8.edgemt is format %d.x, this tree reads %s.x: converting instead"
                % (committed, schema_format_major()))
        out = os.path.join(d, "multi30k-ende.int8.edgemt")
        m["conversions"]["int8"] = convert(MULTI30K, out, "int8", stamp)
        m["files"]["int8"], m["int8_source"] = out, "converted"
    out = os.path.join(d, "multi30k-ende.float32.edgemt")
    m["conversions"]["float32"] = convert(MULTI30K, out, "float32", stamp)
    m["files"]["float32"] = out
    return m


def _random(cache_dir, preset, stamp, generated):
    d = os.path.join(cache_dir, preset)
    ckpt = os.path.join(d, "checkpoint")
    os.makedirs(d, exist_ok=True)
    cmd = [PYTHON, RANDOM_CHECKPOINT, ckpt, "--preset", preset]
    if not (os.path.exists(os.path.join(ckpt, "model.pt")) and os.path.exists(os.path.join(ckpt, "config.json"))):
        log(show(cmd))
        run_child(cmd)
    else:
        COMMANDS.append("(cached) " + show(cmd))
    m = dict(kind="random", checkpoint=ckpt, files={}, conversions={})
    for dtype in ("int8", "float32"):
        if generated:  # build/bin/edgemt-bench-model: random weights without the converter
            out = os.path.join(d, "%s.%s.generated.edgemt" % (preset, dtype))
            cmd = [generated, out, "--preset", preset] + (["--int8"] if dtype == "int8" else [])
            log(show(cmd))
            run_child(cmd)
            m["conversions"][dtype] = dict(cached=False, seconds=0.0, generated=True)
        else:
            out = os.path.join(d, "%s.%s.edgemt" % (preset, dtype))
            m["conversions"][dtype] = convert(ckpt, out, dtype, stamp)
        m["files"][dtype] = out
    return m


def prepare_models(cache_dir, names, generated=None):
    """{name: dict(kind, checkpoint, files={dtype: path}, conversions)} for the named models."""
    stamp = converter_stamp()
    models = {}
    if "multi30k" in names:
        models["multi30k"] = _multi30k(cache_dir, stamp)
    for preset in ("tiny", "base", "opus"):
        if preset in names:
            models[preset] = _random(cache_dir, preset, stamp, generated)
    return models


def fixed_sources(cache_dir):
    """100 sources of 32 ids (line s: 10 + (i + s) % 32 for i in 0..31, then </s> = 3)."""
    path = os.path.join(cache_dir, "fixed-100x32.ids")
    with open(path, "w") as f:
        f.write("".join(" ".join(str(10 + (i + s) % 32) for i in range(32)) + " 3\n" for s in range(100)))
    return path


def int4_file(name, checkpoint, block, stamp):
    """An int4 conversion at a block size, cached beside the model's other files."""
    out = os.path.join(CACHE, name, "%s.int4-b%d.edgemt" % (name, block))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    return out, convert(checkpoint, out, "int4", stamp, extra=("--block-size", str(block)))


def model_config(model):
    with open(os.path.join(model["checkpoint"], "config.json")) as f:
        return json.load(f)
