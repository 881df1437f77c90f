"""The measurement rules (§4.3) with a fake clock."""

import pytest

from serbench_runner import measure


def test_predict_is_testing_b():
    # benchtime 1 s, n = 1 took 1 µs: 1e6, +20%, capped at 100 n
    assert measure.predict(1_000_000_000, 1, 1_000, 10**9) == 100
    # at least n + 1
    assert measure.predict(1_000, 10, 10_000, 10**9) == 11
    # integer arithmetic: 50 ms * 7 // 3_000_001 = 116, + 23 = 139
    assert measure.predict(50_000_000, 7, 3_000_001, 10**9) == 139
    # max_iters
    assert measure.predict(10**9, 10**8, 1, 123) == 123
    # elapsed 0 counts as 1
    assert measure.predict(10, 1, 0, 10**9) == measure.predict(10, 1, 1, 10**9) == 12


def fake(ns_per_op, log):
    def run(n):
        log.append(n)
        return ns_per_op * n

    return run


def test_calibrate_grows_to_benchtime():
    log = []
    c = measure.calibrate(fake(1000, log), 1_000_000, 10**9, False)
    assert log == [1, 100, 1200]
    assert c.n == 1200 and c.first_sample is None


def test_calibrate_slow_op_warms_once_more():
    log = []
    c = measure.calibrate(fake(5_000_000, log), 1_000_000, 10**9, False)
    assert c.n == 1 and log == [1, 1] and c.warmed_again


def test_calibrate_no_warmup_keeps_first_run():
    log = []
    c = measure.calibrate(fake(5_000_000, log), 1_000_000, 10**9, True)
    assert c.n == 1 and log == [1] and c.first_sample == (1, 5_000_000)


def test_calibrate_very_slow_op_no_second_run():
    log = []
    c = measure.calibrate(fake(50_000_000, log), 1_000_000, 10**9, False)
    assert log == [1] and not c.warmed_again


def member(name, count=3, **kw):
    return measure.Member(
        key=name,
        run=lambda n: 10 * n,
        n=5,
        count=count,
        min_count=kw.pop("min_count", 1),
        budget_ns=kw.pop("budget_ns", 0),
        per_round=kw.pop("per_round", 0),
        **kw,
    )


def test_rounds_rotate_and_never_follow_themselves():
    seen = []
    ms = [member("a"), member("b")]
    measure.rounds(ms, lambda m, r, o, it, ns: seen.append((m.key, r, o)), lambda m, e: None)
    # plain rotation would give a b | b a | a b; b may not follow itself
    assert seen == [("a", 1, 0), ("b", 1, 1), ("a", 2, 0), ("b", 2, 1), ("a", 3, 0), ("b", 3, 1)]


def test_rounds_three_members():
    seen = []
    ms = [member("a"), member("b"), member("c")]
    measure.rounds(ms, lambda m, r, o, it, ns: seen.append(m.key), lambda m, e: None)
    assert seen == list("abcbcacab")


def test_budget_and_burst():
    seen = []
    ms = [member("a", count=10, budget_ns=100, min_count=2), member("b", count=4, per_round=3)]
    measure.rounds(ms, lambda m, r, o, it, ns: seen.append((m.key, r)), lambda m, e: None)
    # a: 50 ns a sample, budget 100 -> 2 samples; b: bursts of 3, then 1
    assert [x for x in seen if x[0] == "a"] == [("a", 1), ("a", 2)]
    assert [x for x in seen if x[0] == "b"] == [("b", 1)] * 3 + [("b", 2)]


class PanicException(BaseException):
    """As pyo3's: a Rust extension's panic, not an Exception."""


@pytest.mark.parametrize("exc", [RuntimeError("boom"), PanicException("boom")], ids=["exception", "rust-panic"])
def test_failing_member_leaves_the_group(exc):
    seen, failed = [], []

    def boom(n):
        raise exc

    ms = [member("a"), measure.Member(key="x", run=boom, n=1, count=3, min_count=1, budget_ns=0, per_round=0)]
    measure.rounds(ms, lambda m, r, o, it, ns: seen.append(m.key), lambda m, e: failed.append((m.key, str(e))))
    assert seen == ["a"] * 3 and failed == [("x", "boom")]


def test_interrupt_is_not_a_failure():
    def stop(n):
        raise KeyboardInterrupt

    ms = [measure.Member(key="x", run=stop, n=1, count=3, min_count=1, budget_ns=0, per_round=0)]
    with pytest.raises(KeyboardInterrupt):
        measure.rounds(ms, lambda *a: None, lambda m, e: None)


def test_copy_loop():
    src = bytes(range(256)) * 4
    dst = bytearray(len(src))
    measure.copy_loop(src, dst)(3)
    assert bytes(dst) == src
