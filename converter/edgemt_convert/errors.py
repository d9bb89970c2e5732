"""The error type for problems the user can fix (bad checkpoint, bad options),
and reading a file the user named with it."""
import gzip
import os
import zlib

GZIP_MAGIC = b"\x1f\x8b"


class ConversionError(Exception):
    """A one-line, user-facing message, e.g. "model.pt: missing key X".

    The CLI prints it as "edgemt-convert: error: <message>" and exits non-zero;
    anything else that escapes is a bug and keeps its traceback."""


def read_bytes(path, name=None, what="cannot read", not_found=None):
    """The bytes of a file; otherwise ConversionError "NAME: WHAT (reason)"
    (NAME: the path unless given), or `not_found` for a missing file."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        if not_found is not None and isinstance(e, FileNotFoundError):
            raise ConversionError(not_found)
        raise ConversionError("%s: %s (%s)" % (path if name is None else name, what, e.strerror or e))


def file_bytes(path, name=None, what="cannot read"):
    """(bytes, gzipped): a file's bytes, gunzipped when it starts with gzip's magic."""
    name = name or os.path.basename(path)
    data = read_bytes(path, name, what=what)
    if data[:2] != GZIP_MAGIC:
        return data, False
    try:
        return gzip.decompress(data), True
    except (OSError, EOFError, zlib.error) as e:
        raise ConversionError("%s: damaged gzip data (%s)" % (name, str(e).strip() or type(e).__name__))
