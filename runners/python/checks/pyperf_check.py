"""Does the runner's timing agree with pyperf's?

Three named cases run the same subject code (the runner's own subjects, on
the tests' generated table) under pyperf and under the runner's loop
(serbench_runner.measure: testing.B calibration to a 50 ms sample, then 10
samples with gc.collect() between and the GC disabled inside), and the
medians are compared (want within ±10%).

Each side measures each case in as many fresh processes as the other,
alternating (a runner process, then a pyperf run of one worker process, and
again), and its figure is the median of its processes' medians: a Python
process's luck (hash seed, memory layout) moves a case by several percent,
so one runner process against pyperf's median over six would compare luck,
not harnesses; and a machine that slows down meanwhile slows both sides.

pyperf is run twice: as pyperf runs by default (the cyclic GC on during the
timed loop), and with the GC disabled inside its timed loop as the runner's
method does (and as timeit does), to show what of any difference is GC.

    python checks/pyperf_check.py            # all three cases, a table
    python checks/pyperf_check.py --quick    # fewer pyperf processes
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

# name: (subject, op, rows)
CASES = {
    "small-decode/orjson/100": ("orjson", "decode", 100),
    "large-decode/msgspec-json/20000": ("msgspec-json", "decode", 20000),
    "encode/msgpack/1000": ("msgpack", "encode", 1000),
}
BENCHTIME_NS = 50_000_000  # serbench's default sample time
COUNT = 10


def op(case: str):
    """(fn, arg) of a case: the same callable both harnesses time."""
    from serbench_runner import dataset, subjects
    from tests import sample_data

    subject, what, n = CASES[case]
    t = sample_data.table(n)
    ds = dataset.Dataset(case, t.schema, t, dataset.to_native(t))
    b = subjects.available()[subject].bind(ds.schema)
    natives = b.prepare(ds)
    if what == "encode":
        return b.encode, natives
    return b.decode, bytes(memoryview(b.encode(natives)))


def runner_median(case: str) -> float:
    """The runner's method: calibrate, then COUNT samples; median ns/op."""
    from serbench_runner import measure

    fn, arg = op(case)
    run = measure.op_loop(fn, arg)
    cal = measure.calibrate(run, BENCHTIME_NS, 1_000_000_000, False)
    m = measure.Member(key=case, run=run, n=cal.n, count=COUNT, min_count=1, budget_ns=0, per_round=0)
    measure.rounds([m], lambda *a: None, lambda mb, e: (_ for _ in ()).throw(e))
    return statistics.median(m.times)


def pyperf_worker() -> None:
    import pyperf

    def add_args(cmd, args):
        cmd.extend(["--case", args.case])
        if args.gc_off:
            cmd.append("--gc-off")

    r = pyperf.Runner(add_cmdline_args=add_args)
    r.argparser.add_argument("--case", required=True)
    r.argparser.add_argument("--gc-off", action="store_true")
    r.argparser.add_argument("--pyperf-worker", action="store_true")
    args = r.parse_args()
    fn, arg = op(args.case)

    def time_func(loops):
        from time import perf_counter

        was = gc.isenabled()
        if args.gc_off:
            gc.disable()
        try:
            t0 = perf_counter()
            for _ in range(loops):
                fn(arg)
            return perf_counter() - t0
        finally:
            if was:
                gc.enable()

    r.bench_time_func(args.case, time_func)


def runner_process(case: str) -> float:
    """The runner's median ns/op of case in a fresh process."""
    out = subprocess.run([sys.executable, __file__, "--runner-worker", case], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)


def pyperf_median(case: str, gc_off: bool, processes: int, values: int) -> float:
    import pyperf

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "b.json")
        cmd = [sys.executable, __file__, "--pyperf-worker", "--case", case, "-o", out, "--quiet"]
        cmd += ["--processes", str(processes), "--values", str(values), "--warmups", "1", "--min-time", str(BENCHTIME_NS / 1e9)]
        if gc_off:
            cmd.append("--gc-off")
        subprocess.run(cmd, check=True, cwd=ROOT)
        return pyperf.Benchmark.load(out).median() * 1e9


def main() -> None:
    if "--pyperf-worker" in sys.argv or "--worker" in sys.argv:
        pyperf_worker()
        return
    if "--runner-worker" in sys.argv:
        print(json.dumps(runner_median(sys.argv[sys.argv.index("--runner-worker") + 1])))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    processes, values = (3, 3) if args.quick else (6, 5)
    import platform

    import pyperf

    print(f"CPython {platform.python_version()}, pyperf {pyperf.__version__}; runner: {BENCHTIME_NS // 1_000_000} ms samples x {COUNT}; ", end="")
    print(f"pyperf: {values} values, 1 warm-up, min-time {BENCHTIME_NS / 1e9} s; {processes} processes a side, alternating")
    rows = []
    worst = 0.0
    t0 = time.time()
    for case in CASES:
        rns, pgs = [], []
        for _ in range(processes):
            rns.append(runner_process(case))
            pgs.append(pyperf_median(case, True, 1, values))
        rn, pg = statistics.median(rns), statistics.median(pgs)
        pp = pyperf_median(case, False, processes, values)
        worst = max(worst, abs(rn / pg - 1))
        each = "; ".join(f"{side} {' '.join(f'{x:.0f}' for x in xs)}" for side, xs in (("runner processes", rns), ("pyperf (gc off)", pgs)))
        print(f"{case}: {each} (ns/op)", flush=True)
        rows.append(f"{case:34} {rn:14.0f} {pp:14.0f} {rn / pp:7.3f} {pg:14.0f} {rn / pg:7.3f}")
    print(f"{'case':34} {'runner ns/op':>14} {'pyperf ns/op':>14} {'ratio':>7} {'pyperf gc off':>14} {'ratio':>7}")
    print("\n".join(rows))
    print(f"largest difference from pyperf with the same GC handling: {worst * 100:.1f}% (want within 10%); took {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
