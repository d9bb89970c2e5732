"""The error type for problems the user can fix (bad checkpoint, bad options),
and reading a file the user named with it."""


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
