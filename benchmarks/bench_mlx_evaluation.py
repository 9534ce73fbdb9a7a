"""What lazy Metal results would cost and save: MLX evaluation from one owner thread.

Every Metal result of the array API is scheduled (``mlx.core.async_eval``) in its call,
because MLX evaluates a graph only on a thread that owns the graph's stream ("There is
no Stream(gpu, N) in current thread") while an Array may be read by any thread. A
lazy design would build every graph on a stream one owner thread creates (any thread
may *build* on it) and send every evaluation to that thread. This script measures, in
raw MLX and in one process, what that design trades:

* the cost of building a lazy ``mx.add`` on the caller's default stream and on the
  owner's stream (what a lazy result would cost per call);
* ``mx.add`` plus ``mx.async_eval`` on the caller (what every result costs now);
* the round trip of a no-op job to the owner thread and back (added to every read);
* 64 independent adds scheduled by one ``async_eval`` on the owner, and a chain of 64
  adds evaluated once there, against 64 scheduled one by one on the caller (what
  batching would save);
* a read (``item()``) of a fresh add both ways.

It first checks the thread rule itself: a graph built on the owner's stream evaluates
on the owner and is refused on the caller. Raw MLX only (StrideWeave is not
imported); nothing fails; the figures go to docs/performance.md. Run
``python benchmarks/bench_mlx_evaluation.py`` (MLX's default device; the GPU where
MLX has one).
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from _timing import best_of


class Owner:
    """A thread that owns one MLX stream and runs the jobs it is sent, in order."""

    def __init__(self, mx: Any) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any] | None, threading.Lock]] = (
            queue.SimpleQueue()
        )
        self._result: Any = None
        created = threading.Event()
        box: list[Any] = []

        def serve() -> None:
            box.append(mx.new_stream(mx.default_device()))
            created.set()
            while True:
                job, done = self._jobs.get()
                if job is None:
                    done.release()
                    return
                try:
                    self._result = job()
                except (RuntimeError, ValueError) as exc:  # (MLX's: the answer read)
                    self._result = exc
                done.release()

        self._thread = threading.Thread(target=serve, name="mlx-owner", daemon=True)
        self._thread.start()
        created.wait()
        self.stream = box[0]

    def run(self, job: Callable[[], Any] | None) -> Any:
        """Run ``job`` on the owner thread and return its result (or exception)."""
        done = threading.Lock()
        done.acquire()
        self._jobs.put((job, done))
        done.acquire()
        return self._result

    def stop(self) -> None:
        """End the owner thread."""
        self.run(None)
        self._thread.join()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds per figure (best)")
    args = parser.parse_args(argv)
    try:
        import mlx.core as mx
    except ImportError as exc:
        print(f"MLX is not installed ({exc}): nothing to measure", file=sys.stderr)
        return 0
    print(f"MLX {mx.__version__} on {mx.default_device()}")
    a = mx.ones((1,))
    b = mx.ones((1,))
    mx.eval(a, b)
    owner = Owner(mx)
    s = owner.stream

    built = mx.add(a, b, stream=s)
    on_owner = owner.run(lambda: (mx.eval(built), built.item())[1])
    print(f"a graph built on the owner's stream, evaluated there: {on_owner!r}")
    refused = mx.add(a, b, stream=s)
    try:
        mx.eval(refused)
        print("the same evaluated on the caller: evaluated (no thread rule here)")
    except RuntimeError as exc:
        print(f"the same evaluated on the caller: refused ({exc})")

    def scheduled() -> None:
        mx.async_eval(mx.add(a, b))

    def read_here() -> None:
        c = mx.add(a, b)
        mx.async_eval(c)
        c.item()

    def read_via_owner() -> None:
        c = mx.add(a, b, stream=s)
        owner.run(lambda: mx.async_eval(c))
        c.item()

    def batch_on_owner() -> None:
        cs = [mx.add(a, b, stream=s) for _ in range(64)]
        owner.run(lambda: mx.async_eval(*cs))

    def each_here() -> None:
        for _ in range(64):
            mx.async_eval(mx.add(a, b))

    def chain_on_owner() -> None:
        c = a
        for _ in range(64):
            c = mx.add(c, b, stream=s)
        owner.run(lambda: mx.eval(c))

    def chain_here() -> None:
        c = a
        for _ in range(64):
            c = mx.add(c, b)
            mx.async_eval(c)
        mx.eval(c)

    r = args.repeat
    rows = [
        ("lazy mx.add, the caller's stream", best_of(lambda: mx.add(a, b), r, number=2000)),
        (
            "lazy mx.add, the owner's stream",
            best_of(lambda: mx.add(a, b, stream=s), r, number=2000),
        ),
        ("mx.add + async_eval on the caller", best_of(scheduled, r, number=2000)),
        (
            "round trip to the owner (no-op job)",
            best_of(lambda: owner.run(lambda: None), r, number=500),
        ),
        ("read: add + async_eval + item, caller", best_of(read_here, r, number=500)),
        ("read: add, owner async_eval, item", best_of(read_via_owner, r, number=500)),
        ("64 adds, one async_eval on the owner", best_of(batch_on_owner, r, number=50) / 64),
        ("64 adds, each async_eval on the caller", best_of(each_here, r, number=50) / 64),
        ("chain of 64, one eval on the owner", best_of(chain_on_owner, r, number=50) / 64),
        ("chain of 64, each async_eval, caller", best_of(chain_here, r, number=50) / 64),
    ]
    owner.stop()
    print("| case | µs (per add where 64) |\n|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e6:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
