"""The generated FlatBuffers Python code for schema/edgemt.fbs.

The code is not checked in: it is generated with `flatc --python` into
converter/.generated/ on first use and regenerated whenever the schema's
content (or the flatc version) changes, tracked by a stamp file holding their
hash. A lock makes parallel processes (CTest runs tests in parallel) generate
it once; the new tree is built beside the old one and renamed into place.
"""
import fcntl
import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

from ..errors import ConversionError, read_bytes

CONVERTER_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(os.path.dirname(CONVERTER_DIR), "schema", "edgemt.fbs")
GENERATED_DIR = os.path.join(CONVERTER_DIR, ".generated")
_STAMP = "schema.stamp"
_PACKAGE = "python"          # GENERATED_DIR/python/edgemt/fb/*.py

_modules = None


def _flatc():
    flatc = shutil.which("flatc")
    if flatc is None:
        raise ConversionError("flatc not found: install the FlatBuffers compiler "
                              "(Debian: apt-get install flatbuffers-compiler)")
    return flatc


def _stamp_value(flatc):
    schema = read_bytes(SCHEMA_PATH, what="cannot read the schema")
    version = subprocess.run([flatc, "--version"], capture_output=True, text=True).stdout.strip()
    return hashlib.sha256(schema + b"\0" + version.encode()).hexdigest()


def _read_stamp():
    try:
        with open(os.path.join(GENERATED_DIR, _STAMP)) as f:
            return f.read().strip()
    except OSError:
        return None


def ensure_generated():
    """Generates the Python code if missing or stale; returns its sys.path entry."""
    flatc = _flatc()
    stamp = _stamp_value(flatc)
    package_root = os.path.join(GENERATED_DIR, _PACKAGE)
    if _read_stamp() == stamp and os.path.isdir(package_root):
        return package_root
    os.makedirs(GENERATED_DIR, exist_ok=True)
    with open(os.path.join(GENERATED_DIR, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _read_stamp() == stamp and os.path.isdir(package_root):
            return package_root           # another process did it meanwhile
        tmp = tempfile.mkdtemp(prefix="gen-", dir=GENERATED_DIR)
        try:
            r = subprocess.run([flatc, "--python", "-o", tmp, SCHEMA_PATH], capture_output=True, text=True)
            if r.returncode != 0:
                msg = (r.stderr or r.stdout).strip().splitlines()
                raise ConversionError("flatc --python failed on %s: %s" % (SCHEMA_PATH, msg[0] if msg else "?"))
            old = package_root + ".old"
            shutil.rmtree(old, ignore_errors=True)
            if os.path.exists(package_root):
                os.rename(package_root, old)
            os.rename(tmp, package_root)
            shutil.rmtree(old, ignore_errors=True)
            with open(os.path.join(GENERATED_DIR, _STAMP + ".tmp"), "w") as f:
                f.write(stamp + "\n")
            os.replace(os.path.join(GENERATED_DIR, _STAMP + ".tmp"), os.path.join(GENERATED_DIR, _STAMP))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return package_root


class _Modules:
    """Attribute access to the generated modules: fb.Model, fb.Tensor, ..."""

    def __init__(self):
        for name in ("Model", "Config", "Encoder", "Decoder", "EncoderLayer", "DecoderLayer",
                     "Attention", "FeedForward", "SSRU", "Linear", "LayerNorm", "Tensor",
                     "Tokenizer", "Metadata", "Shortlist"):
            setattr(self, name, importlib.import_module("edgemt.fb." + name))


def fb():
    """The generated modules (generating them first if needed)."""
    global _modules
    if _modules is None:
        root = ensure_generated()
        if root not in sys.path:
            sys.path.insert(0, root)
        _modules = _Modules()
    return _modules


def accessor(field_name):
    """The generated code's name for a schema field (and the model_ir
    dataclass field of that name): self_attention_norm -> SelfAttentionNorm."""
    return "".join(part.capitalize() for part in field_name.split("_"))
