"""The error type for problems the user can fix (bad checkpoint, bad options)."""


class ConversionError(Exception):
    """A one-line, user-facing message, e.g. "model.pt: missing key X".

    The CLI prints it as "edgemt-convert: error: <message>" and exits non-zero;
    anything else that escapes is a bug and keeps its traceback."""
