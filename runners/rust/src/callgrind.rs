//! Instruction counts under Valgrind's callgrind (`serbench run --metric
//! instructions`): when serbench starts the runner under callgrind it sets
//! `SERBENCH_CALLGRIND_OUT` to callgrind's output file, and every timed
//! loop ([`crate::measure::time_loop`]) is then also a counted region: the
//! counters are zeroed, collected on this thread while the loop runs, and
//! dumped, and the dump's totals are read back. This mirrors serbench's Go
//! package `callgrind` (client requests, the same formula for estimated
//! cycles: L1 hits + 5 × LL hits + 35 × RAM hits).

use std::fs;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// The environment variable naming callgrind's output file.
pub const OUT_ENV: &str = "SERBENCH_CALLGRIND_OUT";

const TOOL_BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
const DUMP_STATS: usize = TOOL_BASE;
const ZERO_STATS: usize = TOOL_BASE + 1;
const TOGGLE_COLLECT: usize = TOOL_BASE + 2;
const START_INSTRUMENTATION: usize = TOOL_BASE + 4;
const RUNNING_ON_VALGRIND: usize = 0x1001;

/// Issues a Valgrind client request: RAX points at the request and its
/// arguments, RDX holds the value returned outside Valgrind; the rotations
/// of RDI add up to 128 bits and Valgrind recognises them followed by
/// `xchg rbx, rbx`. The bytes are spelled out so that no other encoding is
/// chosen.
#[cfg(target_arch = "x86_64")]
fn request(code: usize) -> usize {
    let args: [usize; 6] = [code, 0, 0, 0, 0, 0];
    let mut result: usize = 0;
    // SAFETY: the sequence is a no-op on the CPU (RDI is rotated by 128
    // bits in all, and declared clobbered); under Valgrind it reads the six
    // words at RAX and writes RDX.
    unsafe {
        std::arch::asm!(
            ".byte 0x48, 0xc1, 0xc7, 0x03",
            ".byte 0x48, 0xc1, 0xc7, 0x0d",
            ".byte 0x48, 0xc1, 0xc7, 0x3d",
            ".byte 0x48, 0xc1, 0xc7, 0x33",
            ".byte 0x48, 0x87, 0xdb",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            inout("rdi") 0usize => _,
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(_code: usize) -> usize {
    0
}

/// Callgrind's events over a region (per region, not per op):
/// instructions, estimated cycles, first- and last-level cache misses and
/// mispredicted branches (the last four 0 without a cache and branch
/// simulation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub ir: u64,
    pub est_cycles: u64,
    pub l1_misses: u64,
    pub ll_misses: u64,
    pub branch_misses: u64,
}

impl Counts {
    fn minus(self, o: Counts) -> Counts {
        Counts {
            ir: self.ir.saturating_sub(o.ir),
            est_cycles: self.est_cycles.saturating_sub(o.est_cycles),
            l1_misses: self.l1_misses.saturating_sub(o.l1_misses),
            ll_misses: self.ll_misses.saturating_sub(o.ll_misses),
            branch_misses: self.branch_misses.saturating_sub(o.branch_misses),
        }
    }
}

/// Parses a callgrind output file's totals: instructions, and estimated
/// cycles when the file holds a cache simulation.
pub fn parse(text: &str) -> Result<Counts, String> {
    let mut events: Vec<&str> = Vec::new();
    let mut totals: Vec<&str> = Vec::new();
    for line in text.lines() {
        if let Some(e) = line.strip_prefix("events:") {
            events = e.split_whitespace().collect();
        } else if let Some(t) = line.strip_prefix("totals:") {
            totals = t.split_whitespace().collect();
        } else if let Some(t) = line.strip_prefix("summary:") {
            if totals.is_empty() {
                totals = t.split_whitespace().collect();
            }
        }
    }
    if events.is_empty() || totals.is_empty() {
        return Err("callgrind: no events or totals line".into());
    }
    let get = |name: &str| -> Result<u64, String> {
        match events.iter().position(|e| *e == name) {
            Some(i) if i < totals.len() => totals[i]
                .parse()
                .map_err(|_| format!("callgrind: {name}: {:?} is not a count", totals[i])),
            _ => Ok(0),
        }
    };
    if !events.contains(&"Ir") {
        return Err("callgrind: the file counts no instructions".into());
    }
    let ir = get("Ir")?;
    let mut c = Counts {
        ir,
        branch_misses: get("Bcm")? + get("Bim")?,
        ..Default::default()
    };
    if events.contains(&"D1mr") {
        let (dr, dw) = (get("Dr")?, get("Dw")?);
        let l1m = get("I1mr")? + get("D1mr")? + get("D1mw")?;
        let ram = get("ILmr")? + get("DLmr")? + get("DLmw")?;
        let l1 = (ir + dr + dw).saturating_sub(l1m);
        let ll = l1m.saturating_sub(ram);
        c.est_cycles = l1 + 5 * ll + 35 * ram;
        c.l1_misses = l1m;
        c.ll_misses = ram;
    }
    Ok(c)
}

/// Counts regions of the calling thread into the file serbench named.
pub struct Counter {
    out: String,
    dumps: AtomicU32,
    empty: Counts,
}

impl Counter {
    /// Zeroes the counters and starts collecting on this thread.
    pub fn begin(&self) {
        request(ZERO_STATS);
        request(TOGGLE_COLLECT);
    }

    /// Stops collecting, has callgrind dump and reads the dump back (an
    /// empty region's cost subtracted).
    pub fn end(&self) -> Result<Counts, String> {
        let raw = self.end_raw()?;
        Ok(raw.minus(self.empty))
    }

    fn end_raw(&self) -> Result<Counts, String> {
        request(TOGGLE_COLLECT);
        request(DUMP_STATS);
        let n = self.dumps.fetch_add(1, Ordering::SeqCst) + 1;
        let path = format!("{}.{n}", self.out);
        let text = fs::read_to_string(&path).map_err(|e| format!("callgrind: {path}: {e}"))?;
        let _ = fs::remove_file(&path);
        parse(&text)
    }
}

/// The process's counter: Some when serbench started it under callgrind
/// to count (the output file named and Valgrind present), None otherwise.
/// The first call turns instrumentation on and counts an empty region.
pub fn counter() -> Option<&'static Counter> {
    static COUNTER: OnceLock<Option<Counter>> = OnceLock::new();
    COUNTER
        .get_or_init(|| {
            let out = std::env::var(OUT_ENV).ok().filter(|s| !s.is_empty())?;
            if request(RUNNING_ON_VALGRIND) == 0 {
                return None;
            }
            request(START_INSTRUMENTATION);
            let mut c = Counter {
                out,
                dumps: AtomicU32::new(0),
                empty: Counts::default(),
            };
            c.begin();
            c.empty = c.end_raw().ok()?;
            Some(c)
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_totals_and_estimates_cycles() {
        // 100 instructions, 50 reads, 20 writes; 10 L1 misses, 2 of them
        // missing LL too: 160 + 5 × 8 + 35 × 2.
        let text =
            "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm\nfn=x\n0 1\ntotals: 100 50 20 4 5 1 1 1 0 9 1\n";
        assert_eq!(
            parse(text),
            Ok(Counts {
                ir: 100,
                est_cycles: 270,
                l1_misses: 10,
                ll_misses: 2,
                branch_misses: 1
            })
        );
        assert_eq!(
            parse("events: Ir\nsummary: 7\n"),
            Ok(Counts {
                ir: 7,
                ..Default::default()
            })
        );
        assert!(parse("events: Dr\ntotals: 1\n").is_err());
        assert!(parse("nothing").is_err());
        assert!(parse("events: Ir\ntotals: x\n").is_err());
    }

    #[test]
    fn no_counter_outside_valgrind() {
        assert!(counter().is_none());
    }
}
