"""Progress lines on stderr, with the seconds since the script started."""
import sys
import time

T0 = time.time()


def log(message):
    print("[%6.1fs] %s" % (time.time() - T0, message), file=sys.stderr, flush=True)
