"""The machine's load while we measure: other processes' CPU, waiting for an idle machine, the CPU lock.

On the shared 2-core VM a figure is only as good as the quiet it was taken in, so every measurement records
how much CPU everything else used meanwhile (/proc/stat's busy time minus ours, per wall second).
"""
import contextlib
import fcntl
import os
import time

from .log import log

CLK_TCK = os.sysconf("SC_CLK_TCK")
LOCK_PATH = "/tmp/edgemt-cpu.lock"  # the lock our builds, tests and benchmarks take
IDLE = dict(max_wait_s=0.0, waited_s=0.0, budget_s=0.0)  # waiting for idle before a timed child (set by a driver)
ROUNDS = []  # per locked round: its label, wall time and the CPU share of other processes during it


def busy_cpu_seconds():
    """CPU seconds spent by everything on the machine so far (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLK_TCK


def wait_idle():
    """Before a timed child: waits (within IDLE's budget) until the other processes use < 0.15 cores; returns
    the load last seen."""
    start = time.time()
    while True:
        a, t = busy_cpu_seconds(), time.time()
        time.sleep(0.5)
        load = (busy_cpu_seconds() - a) / (time.time() - t)
        waited = time.time() - start
        if load < 0.15 or waited >= IDLE["max_wait_s"] or IDLE["waited_s"] + waited >= IDLE["budget_s"]:
            IDLE["waited_s"] += waited
            return load


def wait_quiet(seconds, threshold):
    """Waits up to `seconds` for the 1-minute load average to fall to `threshold`; returns the seconds waited."""
    waited = 0
    while os.getloadavg()[0] > threshold and waited < seconds:
        log("load average %.2f > %.2f: waiting (%d of %d s)" % (os.getloadavg()[0], threshold, waited, seconds))
        time.sleep(30)
        waited += 30
    return waited


def own_cpu_s():
    """CPU seconds of this script and of its children waited for (every measured process is)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@contextlib.contextmanager
def cpu_lock(label):
    """Holds flock(/tmp/edgemt-cpu.lock), as `flock /tmp/edgemt-cpu.lock CMD` does, so that no other
    measurement runs beside ours, and records in ROUNDS the CPU that other processes used meanwhile (over the
    whole round, as a process of a few ms is shorter than the 10 ms tick /proc/stat counts in)."""
    fd = os.open(LOCK_PATH, os.O_RDONLY | os.O_CREAT, 0o666)
    try:
        start = time.time()
        fcntl.flock(fd, fcntl.LOCK_EX)
        if time.time() - start > 1:
            log("waited %.1f s for %s" % (time.time() - start, LOCK_PATH))
        busy0, own0, t0 = busy_cpu_seconds(), own_cpu_s(), time.perf_counter()
        yield
        wall = time.perf_counter() - t0
        other = max(0.0, busy_cpu_seconds() - busy0 - (own_cpu_s() - own0)) / wall
        ROUNDS.append(dict(label=label, wall_s=round(wall, 3), other_load=round(other, 3)))
    finally:
        os.close(fd)  # releases the lock


def max_other_load(rounds=None):
    """The most CPU other processes used during any locked round (0 when none ran)."""
    loads = [r["other_load"] for r in (ROUNDS if rounds is None else rounds)]
    return max(loads) if loads else 0.0
