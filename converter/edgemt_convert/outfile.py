"""Writing the output file so that a failed or interrupted run leaves nothing.

The bytes go to a temporary file in the output's folder (same file system,
so the final rename is atomic) and are renamed over --out only when
complete. Any exception, Ctrl-C (KeyboardInterrupt) or SIGTERM (turned into
one by the CLI) removes the temporary file.
"""
import os
import tempfile

from .errors import ConversionError


def check_writable(path):
    """Fails early (before loading the checkpoint) if --out cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ConversionError("%s: is a directory (--out takes a file name)" % path)
    if not os.path.isdir(folder):
        raise ConversionError("%s: folder %s does not exist" % (path, folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConversionError("%s: folder %s is not writable" % (path, folder))


def write_atomic(path, data):
    """Writes `data` to `path` whole or not at all; an OSError on the way (a
    full disk, a quota, a folder made read-only meanwhile) is a
    ConversionError naming the path, and leaves no file."""
    check_writable(path)
    try:
        _write_atomic(path, data)
    except OSError as e:
        raise ConversionError("%s: cannot write (%s)" % (path, e.strerror or e)) from None


def _write_atomic(path, data):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)     # mkstemp makes it 0600
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
