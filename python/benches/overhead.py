"""Overhead of the Python package, measured on whole loops (run: python python/benches/overhead.py).

* A session's ask/tell round trips from Python, on the session of the Rust criterion bench
  `crates/session/benches/round_trip.rs` (PF-TS, a 5×5 gridded box, 20 answers "a", from creating
  the file to the recommendation): compare the two per-loop times.
* Converting a 1000×1000 float64 matrix into the library and back (the copy every matrix function
  pays), next to computing a 1000-point Gram matrix.
"""

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import bohf


def timed(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def session_loop(path):
    box = {"names": ["x", "y"], "lower": [0.0, 0.0], "upper": [1.0, 1.0], "points_per_dim": 5}
    with bohf.Session.new(path, box=box, algorithm="pf-ts", budget=20, seed=1, name="bench", force=True) as s:
        while (q := s.ask()) is not None:
            s.tell(q, "a")
        return s.recommend()


def main():
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.json"
        med, best = timed(lambda: session_loop(path), 10)
        print(f"session: create + 20 ask/tell round trips: median {med * 1e3:.1f} ms, min {best * 1e3:.1f} ms "
              f"({med / 20 * 1e3:.2f} ms per round trip)")
    a = np.random.default_rng(0).uniform(size=(1000, 1000))
    med, best = timed(lambda: bohf._bohf._echo_matrix(a), 20)
    print(f"1000×1000 matrix into the library and back: median {med * 1e3:.2f} ms, min {best * 1e3:.2f} ms")
    x = np.random.default_rng(1).uniform(size=(1000, 3))
    med, best = timed(lambda: bohf.gram(x, kind="se"), 10)
    print(f"bohf.gram of 1000 points (3-D, SE), including the output conversion: median {med * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
