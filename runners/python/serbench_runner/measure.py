"""Measurement (docs/runner-protocol.md §4.3-4.4): testing.B's calibration
rule, the timed loop, and the interleaved rounds of a comparison group.

A sample times ``iters`` calls of the op with ``time.perf_counter_ns`` read
once before and once after the loop, with the cyclic garbage collector
disabled during the loop (re-enabled after) and ``gc.collect()`` run before
every member's turn, outside timing. tracemalloc is never started:
allocation is not measured (``alloc: "none"``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from time import perf_counter_ns

from .out import fatal


def predict(benchtime_ns: int, n: int, elapsed_ns: int, max_iters: int) -> int:
    """testing.B's next iteration count (§4.3 step 2, integer arithmetic)."""
    nxt = benchtime_ns * n // max(elapsed_ns, 1)
    nxt += nxt // 5
    nxt = min(nxt, 100 * n)
    nxt = max(nxt, n + 1)
    nxt = min(nxt, max_iters)
    return nxt


def op_loop(fn: Callable, arg) -> Callable[[int], int]:
    """A timed loop of n calls fn(arg); returns the elapsed ns."""

    def run(n: int) -> int:
        was = gc.isenabled()
        gc.disable()
        try:
            r = None
            t0 = perf_counter_ns()
            for _ in repeat(None, n):
                r = fn(arg)  # kept until the next call: consumed
            t1 = perf_counter_ns()
            del r
        finally:
            if was:
                gc.enable()
        return t1 - t0

    return run


def copy_loop(src: bytes, dst: bytearray) -> Callable[[int], int]:
    """The limit row (§4.5): n slice assignments of src into dst (same length)."""
    if len(dst) != len(src):
        raise ValueError("copy destination of the wrong length")

    def run(n: int) -> int:
        was = gc.isenabled()
        gc.disable()
        try:
            t0 = perf_counter_ns()
            for _ in repeat(None, n):
                dst[:] = src
            t1 = perf_counter_ns()
        finally:
            if was:
                gc.enable()
        return t1 - t0

    return run


@dataclass
class Calibration:
    n: int
    runs: int
    # with no_warmup: the first run kept as the first sample (iters, ns)
    first_sample: tuple[int, int] | None = None
    warmed_again: bool = False


def calibrate(run: Callable[[int], int], benchtime_ns: int, max_iters: int, no_warmup: bool) -> Calibration:
    """§4.3 step 2: grow n until one run lasts benchtime_ns (or n reaches
    max_iters); the runs are the warm-up."""
    n = 1
    runs = 0
    last = 0
    while True:
        if n == 1:
            gc.collect()  # the first run may become a sample
        last = run(n)
        runs += 1
        if last >= benchtime_ns or n >= max_iters:
            break
        n = predict(benchtime_ns, n, last, max_iters)
    c = Calibration(n, runs)
    if n == 1 and no_warmup:
        c.first_sample = (1, last)
    elif n == 1 and last < 10 * benchtime_ns:
        run(1)  # a slow op has had one cold run: warm up once more
        c.warmed_again = True
    return c


@dataclass
class Member:
    """One case of a group being sampled."""

    key: object
    run: Callable[[int], int]
    n: int
    count: int
    min_count: int
    budget_ns: int
    per_round: int
    pending: tuple[int, int] | None = None
    samples: int = 0
    total_ns: int = 0
    failed: bool = False
    times: list = field(default_factory=list)

    def wants(self) -> bool:
        if self.failed or self.samples >= self.count:
            return False
        return self.samples < self.min_count or self.budget_ns <= 0 or self.total_ns < self.budget_ns


def rounds(
    members: list[Member],
    emit: Callable[[Member, int, int, int, int], None],
    fail: Callable[[Member, BaseException], None],
    stop: Callable[[], bool] = lambda: False,
) -> bool:
    """§4.3 step 3: interleaved rounds until no member wants more samples.
    emit(member, round (from 1), order, iters, ns) writes a sample;
    fail(member, exc) reports a member that raised. Returns False when
    stopped early."""
    m = len(members)
    if m == 0:
        return True
    last = None
    rnd = 0
    while True:
        order = [members[(k + rnd) % m] for k in range(m)]
        order = [x for x in order if x.wants()]
        if not order:
            return True
        if len(order) > 1 and order[0] is last:
            order.append(order.pop(0))
        for pos, mb in enumerate(order):
            if stop():
                return False
            try:
                if mb.pending is not None:
                    iters, ns = mb.pending
                    mb.pending = None
                    _take(mb, emit, rnd, pos, iters, ns)
                elif mb.per_round > 1:
                    gc.collect()
                    mb.run(mb.n)  # untimed run before the burst
                    k = 0
                    while k < mb.per_round and (k == 0 or mb.wants()):
                        if k > 0 and stop():
                            return False
                        _take(mb, emit, rnd, pos, mb.n, mb.run(mb.n))
                        k += 1
                else:
                    gc.collect()
                    _take(mb, emit, rnd, pos, mb.n, mb.run(mb.n))
            except BaseException as e:  # noqa: BLE001 - a member's failure leaves the group
                if fatal(e):
                    raise
                mb.failed = True
                fail(mb, e)
            last = mb
        rnd += 1


def _take(mb: Member, emit, rnd: int, pos: int, iters: int, ns: int) -> None:
    mb.samples += 1
    mb.total_ns += ns
    mb.times.append(ns / iters)
    emit(mb, rnd + 1, pos, iters, ns)
