//! Measurement (docs/runner-protocol.md §4.3-4.4): testing.B's calibration
//! rule, the timed loop, and the interleaved rounds of a comparison group.

use std::hint::black_box;
use std::time::Instant;

use crate::alloc;
use crate::callgrind;

/// One timed run: elapsed ns and the allocation counters' growth, and,
/// under callgrind (serbench run --metric instructions), its counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timed {
    pub ns: u64,
    pub alloc_bytes: u64,
    pub allocs: u64,
    pub counts: Option<callgrind::Counts>,
}

/// A timed loop of n iterations: the op's result is consumed by
/// `black_box`; the clock and the allocation counters are read once before
/// and once after.
pub type Run<'a> = Box<dyn FnMut(u64) -> Result<Timed, String> + 'a>;

/// Times n calls of op, each result kept from the optimiser.
/// Under callgrind the loop is also a counted region (the clock and the
/// allocation counters are read outside it).
pub fn time_loop<T, F: FnMut() -> Result<T, String>>(n: u64, mut op: F) -> Result<Timed, String> {
    let counter = callgrind::counter();
    let (b0, c0) = alloc::counters();
    let t0 = Instant::now();
    if let Some(k) = counter {
        k.begin();
    }
    let res: Result<(), String> = (|| {
        for _ in 0..n {
            let r = op()?;
            black_box(r);
        }
        Ok(())
    })();
    let counts = match counter {
        Some(k) => Some(k.end()?),
        None => None,
    };
    res?;
    let ns = t0.elapsed().as_nanos() as u64;
    let (b1, c1) = alloc::counters();
    Ok(Timed {
        ns,
        alloc_bytes: b1 - b0,
        allocs: c1 - c0,
        counts,
    })
}

/// testing.B's next iteration count (§4.3 step 2, integer arithmetic).
pub fn predict(benchtime_ns: u64, n: u64, elapsed_ns: u64, max_iters: u64) -> u64 {
    let mut next = (benchtime_ns as u128 * n as u128 / elapsed_ns.max(1) as u128) as u64;
    next += next / 5;
    next = next.min(n.saturating_mul(100));
    next = next.max(n + 1);
    next.min(max_iters)
}

/// The outcome of calibration.
#[derive(Debug)]
pub struct Calibration {
    pub n: u64,
    pub runs: u32,
    /// With no_warmup: the first run, kept as the first sample.
    pub first_sample: Option<(u64, Timed)>,
}

/// §4.3 step 2: grow n until one run lasts benchtime_ns (or n reaches
/// max_iters); the runs are the warm-up.
pub fn calibrate(run: &mut Run, benchtime_ns: u64, max_iters: u64, no_warmup: bool) -> Result<Calibration, String> {
    let mut n = 1u64;
    let mut runs = 0;
    let last = loop {
        let t = run(n)?;
        runs += 1;
        if t.ns >= benchtime_ns || n >= max_iters {
            break t;
        }
        n = predict(benchtime_ns, n, t.ns, max_iters);
    };
    let mut c = Calibration {
        n,
        runs,
        first_sample: None,
    };
    if n == 1 && no_warmup && last.ns >= benchtime_ns {
        c.first_sample = Some((1, last));
    } else if n == 1 && last.ns < 10 * benchtime_ns {
        run(1)?; // a slow op has had one cold run: warm up once more
    }
    Ok(c)
}

/// One case of a group being sampled.
pub struct Member<'a> {
    pub run: Run<'a>,
    pub n: u64,
    pub count: u64,
    pub min_count: u64,
    pub budget_ns: u64,
    pub per_round: u64,
    pub pending: Option<(u64, Timed)>,
    pub samples: u64,
    pub total_ns: u64,
    pub failed: bool,
}

impl Member<'_> {
    /// Whether the member wants another sample.
    pub fn wants(&self) -> bool {
        if self.failed || self.samples >= self.count {
            return false;
        }
        self.samples < self.min_count || self.budget_ns == 0 || self.total_ns < self.budget_ns
    }
}

/// §4.3 step 3: interleaved rounds until no member wants more samples.
/// `emit(member index, round (from 1), order, iters, timed)` writes a
/// sample; `fail(member index, message)` reports a member that failed.
/// Returns false when stopped early.
pub fn rounds(
    ms: &mut [Member],
    emit: &mut dyn FnMut(usize, u64, usize, u64, Timed),
    fail: &mut dyn FnMut(usize, String),
    stop: &dyn Fn() -> bool,
) -> bool {
    let m = ms.len();
    if m == 0 {
        return true;
    }
    let mut last: Option<usize> = None;
    let mut rnd = 0usize;
    loop {
        let mut order: Vec<usize> = (0..m).map(|k| (k + rnd) % m).filter(|&i| ms[i].wants()).collect();
        if order.is_empty() {
            return true;
        }
        if order.len() > 1 && Some(order[0]) == last {
            let f = order.remove(0);
            order.push(f);
        }
        for (pos, &i) in order.iter().enumerate() {
            if stop() {
                return false;
            }
            let r = (rnd + 1) as u64;
            let res: Result<(), String> = (|| {
                let mb = &mut ms[i];
                if let Some((iters, t)) = mb.pending.take() {
                    take(mb, i, emit, r, pos, iters, t);
                } else if mb.per_round > 1 {
                    let n = mb.n;
                    (mb.run)(n)?; // untimed run before the burst
                    let mut k = 0;
                    while k < mb.per_round && (k == 0 || mb.wants()) {
                        if k > 0 && stop() {
                            return Err(String::new());
                        }
                        let t = (mb.run)(n)?;
                        take(mb, i, emit, r, pos, n, t);
                        k += 1;
                    }
                } else {
                    let n = mb.n;
                    let t = (mb.run)(n)?;
                    take(mb, i, emit, r, pos, n, t);
                }
                Ok(())
            })();
            if let Err(e) = res {
                if e.is_empty() {
                    return false; // stopped inside a burst
                }
                ms[i].failed = true;
                fail(i, e);
            }
            last = Some(i);
        }
        rnd += 1;
    }
}

fn take(
    mb: &mut Member,
    i: usize,
    emit: &mut dyn FnMut(usize, u64, usize, u64, Timed),
    rnd: u64,
    pos: usize,
    iters: u64,
    t: Timed,
) {
    mb.samples += 1;
    mb.total_ns += t.ns;
    emit(i, rnd, pos, iters, t);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predict_is_testing_b() {
        assert_eq!(predict(1_000_000_000, 1, 1000, 1_000_000_000), 100);
        assert_eq!(predict(1_000_000_000, 100, 100_000, 1_000_000_000), 10_000);
        assert_eq!(predict(1_000, 10, 2_000, 1_000_000), 11);
        assert_eq!(predict(1_000_000_000, 1000, 1, 5000), 5000);
    }

    fn fake(ns_per_op: u64) -> Run<'static> {
        Box::new(move |n| {
            Ok(Timed {
                ns: n * ns_per_op,
                ..Default::default()
            })
        })
    }

    #[test]
    fn calibration_reaches_benchtime() {
        let mut r = fake(1000);
        let c = calibrate(&mut r, 10_000_000, 1_000_000_000, false).unwrap();
        assert!(c.n * 1000 >= 10_000_000, "{c:?}");
        let mut slow = fake(50_000_000);
        let c = calibrate(&mut slow, 10_000_000, 1_000_000_000, true).unwrap();
        assert_eq!(c.n, 1);
        assert!(c.first_sample.is_some());
    }

    #[test]
    fn rotation_and_counts() {
        let mk = |count| Member {
            run: fake(10),
            n: 1,
            count,
            min_count: 1,
            budget_ns: 0,
            per_round: 0,
            pending: None,
            samples: 0,
            total_ns: 0,
            failed: false,
        };
        let mut ms = vec![mk(3), mk(3), mk(3)];
        let mut got = Vec::new();
        let ok = rounds(
            &mut ms,
            &mut |i, r, o, _, _| got.push((i, r, o)),
            &mut |_, _| {},
            &|| false,
        );
        assert!(ok);
        // round 1: 0 1 2; round 2 starts at 1 and ends with 0; round 3
        // would start at 2, which ended round 2... no: 0 did, so no move.
        assert_eq!(
            got,
            vec![
                (0, 1, 0),
                (1, 1, 1),
                (2, 1, 2),
                (1, 2, 0),
                (2, 2, 1),
                (0, 2, 2),
                (2, 3, 0),
                (0, 3, 1),
                (1, 3, 2)
            ]
        );
    }

    #[test]
    fn no_self_follow() {
        let mk = |count| Member {
            run: fake(10),
            n: 1,
            count,
            min_count: 1,
            budget_ns: 0,
            per_round: 0,
            pending: None,
            samples: 0,
            total_ns: 0,
            failed: false,
        };
        // 2 members: round 2 starts at 1, which ended round 1: moved to the end.
        let mut ms = vec![mk(2), mk(2)];
        let mut got = Vec::new();
        rounds(&mut ms, &mut |i, r, _, _, _| got.push((i, r)), &mut |_, _| {}, &|| {
            false
        });
        assert_eq!(got, vec![(0, 1), (1, 1), (0, 2), (1, 2)]);
    }
}
