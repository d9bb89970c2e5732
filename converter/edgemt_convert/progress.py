"""Progress bars (tqdm, on stderr) and step timings of a conversion."""
import sys
import time


class Steps:
    """Progress bars (tqdm, stderr) and step timings."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.timings = []

    def bar(self, desc, total, unit="tensor"):
        from tqdm import tqdm
        return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not self.enabled,
                    leave=False, dynamic_ncols=True)

    def timed(self, name, t0):
        self.timings.append((name, time.perf_counter() - t0))
