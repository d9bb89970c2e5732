"""Running a measured child process: wall time, peak RSS, the CPU other processes used, the command log.

Peak RSS is the child's ru_maxrss as /usr/bin/time reports it, not os.wait4's: Linux carries the high-water
mark of the image exec replaces over into ru_maxrss, so a child forked from a (~20 MB) Python process would
never report less than that; /usr/bin/time forks the program from its own small image.
"""
import os
import shlex
import subprocess
import tempfile
import time

from . import load
from .paths import REPO, SHARED, rel

TIME_PROGRAM = "/usr/bin/time"  # Debian package `time` (tools/install-deps.sh)
COMMANDS = []  # every command run, in order, for the report


def show(cmd, stdin=None, stdout=None, env_note=None):
    """A command as the report writes it: paths relative to the repository, redirections, an env note."""
    text = " ".join(shlex.quote(rel(c) if os.path.isabs(c) and (c.startswith(REPO) or c.startswith(SHARED)) else c)
                    for c in cmd)
    if stdin:
        text += " < " + rel(stdin)
    if stdout:
        text += " > " + rel(stdout)
    if env_note:
        text = env_note + " " + text
    return text


def swap_commands(new):
    """Replaces the command log's contents with `new` (a list) and returns the old contents."""
    old = list(COMMANDS)
    COMMANDS[:] = new
    return old


def _peak_rss_kb(path):
    with open(path) as f:
        lines = f.read().strip().splitlines()
    os.unlink(path)
    return int(lines[-1]) if lines and lines[-1].isdigit() else 0


def _spawn(cmd, stdin, stdout_path, out_tmp, err_tmp, env, cwd):
    """Runs cmd under /usr/bin/time; returns (returncode, wall s, rusage, peak RSS KiB, busy CPU s meanwhile)."""
    rss_file = tempfile.NamedTemporaryFile(suffix=".rss", delete=False)
    rss_file.close()
    stdin_file = open(stdin, "rb") if stdin else subprocess.DEVNULL
    out_file = open(stdout_path, "wb") if stdout_path else out_tmp
    try:
        busy0, start = load.busy_cpu_seconds(), time.perf_counter()
        proc = subprocess.Popen([TIME_PROGRAM, "-f", "%M", "-o", rss_file.name] + list(cmd), stdin=stdin_file,
                                stdout=out_file, stderr=err_tmp, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        busy = load.busy_cpu_seconds() - busy0
    finally:
        if stdin:
            stdin_file.close()
        if stdout_path:
            out_file.close()
    return os.waitstatus_to_exitcode(status), wall, usage, _peak_rss_kb(rss_file.name), busy


def run_child(cmd, stdin=None, stdout_path=None, env=None, env_note=None, record=True, check=True, cwd=None,
              timed=False):
    """Runs one child: returns rc, stdout, stderr, wall seconds, peak RSS (KiB) and the CPU load (in cores) that
    other processes put on the machine while it ran. `timed`: first wait for an idle machine (load.wait_idle)."""
    if record:
        COMMANDS.append(show(cmd, stdin, stdout_path, env_note))
    idle_before = load.wait_idle() if timed and load.IDLE["max_wait_s"] > 0 else None
    with tempfile.TemporaryFile() as out_tmp, tempfile.TemporaryFile() as err_tmp:
        rc, wall, usage, rss_kb, busy = _spawn(cmd, stdin, stdout_path, out_tmp, err_tmp, env, cwd)
        out_tmp.seek(0)
        err_tmp.seek(0)
        out, err = (b"" if stdout_path else out_tmp.read()), err_tmp.read()
    other = max(0.0, busy - usage.ru_utime - usage.ru_stime) / wall if wall > 0 else 0.0
    result = dict(rc=rc, out=out.decode("utf-8", "replace"), err=err.decode("utf-8", "replace"), wall_s=wall,
                  maxrss_kb=rss_kb, other_load=round(other, 3),
                  other_load_before=None if idle_before is None else round(idle_before, 3))
    if check and rc != 0:
        raise SystemExit("command failed (%d): %s\n%s" % (rc, show(cmd, stdin, stdout_path), result["err"][-3000:]))
    return result


def warm_page_cache(*paths):
    """Reads files, so that the next process maps them from a warm page cache (how many pages a fault maps,
    and so the RSS, depends on what is cached)."""
    for path in paths:
        if path:
            with open(path, "rb") as f:
                while f.read(1 << 23):
                    pass
