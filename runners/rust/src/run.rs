//! `run`: every case of cases.jsonl, group by group (§4).

use std::collections::{BTreeSet, HashMap};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use serde_json::{json, Value as Json};

use crate::bound::{Bound, Dataset, Decoded, Enc, Res, SetupError, Subject};
use crate::codecs::Codec;
use crate::measure::{self, Member, Run, Timed};
use crate::out::{line, log, one_line};
use crate::projection::{self, Projection};
use crate::value::Ty;

/// Set by SIGTERM/SIGINT: stop at the next sample boundary.
pub static STOP: AtomicBool = AtomicBool::new(false);

fn stopped() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// One line of cases.jsonl.
#[derive(Clone, Debug, Default)]
pub struct Case {
    pub id: String,
    pub group: String,
    pub subject: String,
    pub op: String,
    pub dataset: String,
    pub codec: String,
    pub query: String,
    pub count: u64,
    pub min_count: u64,
    pub budget_ns: u64,
    pub per_round: u64,
    pub no_warmup: bool,
    pub limit_of: String,
    /// The file of an export or import case (§10), relative to WORK.
    pub path: String,
    pub params: serde_json::Map<String, Json>,
}

impl Case {
    /// Parses a case object; unknown members are ignored.
    pub fn parse(v: &Json) -> Res<Case> {
        let o = v.as_object().ok_or("a case is not an object")?;
        let s = |k: &str| -> Res<String> {
            match o.get(k) {
                None | Some(Json::Null) => Ok(String::new()),
                Some(Json::String(s)) => Ok(s.clone()),
                Some(_) => Err(format!("{k} is not a string")),
            }
        };
        let n = |k: &str| -> Res<u64> {
            match o.get(k) {
                None | Some(Json::Null) => Ok(0),
                Some(x) => match x.as_i64() {
                    Some(i) if i >= 0 => Ok(i as u64),
                    Some(i) => Err(format!("{k} {i} is negative")),
                    None => Err(format!("{k} is not an integer")),
                },
            }
        };
        let id = s("id")?;
        if id.is_empty() {
            return Err("a case without id".into());
        }
        let params = match o.get("params") {
            None | Some(Json::Null) => Default::default(),
            Some(Json::Object(m)) => m.clone(),
            Some(_) => return Err(format!("case {id}: params is not an object")),
        };
        Ok(Case {
            group: s("group")?,
            subject: s("subject")?,
            op: s("op")?,
            dataset: s("dataset")?,
            codec: s("codec")?,
            query: s("query")?,
            count: n("count")?,
            min_count: n("min_count")?,
            budget_ns: n("budget_ns")?,
            per_round: n("per_round")?,
            no_warmup: o.get("no_warmup").and_then(|b| b.as_bool()).unwrap_or(false),
            limit_of: s("limit_of")?,
            path: s("path")?,
            params,
            id,
        })
    }
}

/// The runner's own failure: an error line without case, exit 1.
#[derive(Debug)]
pub struct WorkError(pub String);

/// What a set-up member measures.
enum Op {
    Encode,
    Decode(Option<Projection>),
    Copy(Arc<Vec<u8>>),
}

struct Prepared {
    case: Case,
    bound: Option<Box<dyn Bound>>,
    op: Op,
    codec: Codec,
    encoded: Bytes,
    ds: Option<Arc<Dataset>>,
}

/// The state of a run.
pub struct Runner {
    work: PathBuf,
    subjects: Vec<Subject>,
    benchtime: u64,
    max_iters: u64,
    default_count: u64,
    datasets: HashMap<String, Arc<Dataset>>,
    kept: HashMap<String, Arc<Vec<u8>>>,
    limit_targets: BTreeSet<String>,
    /// Cases finished, and those reported failed.
    pub finished: u64,
    pub failed: u64,
}

impl Runner {
    /// A runner over a work directory.
    pub fn new(work: &Path, subjects: Vec<Subject>) -> Runner {
        Runner {
            work: work.to_path_buf(),
            subjects,
            benchtime: 1_000_000_000,
            max_iters: 1_000_000_000,
            default_count: 1,
            datasets: HashMap::new(),
            kept: HashMap::new(),
            limit_targets: BTreeSet::new(),
            finished: 0,
            failed: 0,
        }
    }

    fn read(&mut self) -> Result<Vec<Case>, WorkError> {
        let rd = |p: &str| -> Result<String, WorkError> {
            std::fs::read_to_string(self.work.join(p))
                .map_err(|e| WorkError(format!("unreadable work directory {}: {p}: {e}", self.work.display())))
        };
        let rj: Json = serde_json::from_str(&rd("run.json")?).map_err(|e| WorkError(format!("run.json: {e}")))?;
        let g = |k: &str, d: u64| -> Result<u64, WorkError> {
            match rj.get(k) {
                None | Some(Json::Null) => Ok(d),
                Some(v) => match v.as_i64() {
                    Some(0) => Ok(d),
                    Some(x) if x > 0 => Ok(x as u64),
                    _ => Err(WorkError(format!("run.json: {k} must be a positive integer"))),
                },
            }
        };
        self.benchtime = g("benchtime_ns", 1_000_000_000)?;
        self.max_iters = g("max_iters", 1_000_000_000)?;
        self.default_count = g("count", 1)?;
        let mut cases = Vec::new();
        for (i, l) in rd("cases.jsonl")?.lines().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            let v: Json = serde_json::from_str(l).map_err(|e| WorkError(format!("cases.jsonl line {}: {e}", i + 1)))?;
            cases.push(Case::parse(&v).map_err(|e| WorkError(format!("cases.jsonl line {}: {e}", i + 1)))?);
        }
        Ok(cases)
    }

    /// Runs every case.
    pub fn run(&mut self) -> Result<(), WorkError> {
        let cases = self.read()?;
        self.limit_targets = cases
            .iter()
            .filter(|c| !c.limit_of.is_empty())
            .map(|c| c.limit_of.clone())
            .collect();
        let mut i = 0;
        while i < cases.len() && !stopped() {
            let mut j = i + 1;
            let g = &cases[i].group;
            if !g.is_empty() {
                while j < cases.len() && &cases[j].group == g {
                    j += 1;
                }
            }
            self.run_group(&cases[i..j]);
            i = j;
        }
        Ok(())
    }

    fn fail(&mut self, c: &Case, phase: &str, msg: &str) {
        self.fail_line(c, phase, msg, false);
    }

    /// The error line of a case; cannot_hold: the subject's format cannot
    /// represent the dataset (§3.4).
    fn fail_line(&mut self, c: &Case, phase: &str, msg: &str, cannot_hold: bool) {
        let m = if msg.is_empty() {
            "error".to_string()
        } else {
            one_line(msg)
        };
        let mut l = json!({"type": "error", "case": c.id, "phase": phase, "message": m});
        if cannot_hold {
            l["cannot_hold"] = json!(true);
        }
        line(&l);
        self.failed += 1;
        self.finished += 1;
    }

    fn run_group(&mut self, group: &[Case]) {
        if group.len() == 1 && (group[0].op == "export" || group[0].op == "import") {
            self.file_case(&group[0]);
            return;
        }
        let used: BTreeSet<&str> = group.iter().map(|c| c.dataset.as_str()).collect();
        self.datasets.retain(|k, _| used.contains(k.as_str()));
        let mut members: Vec<Prepared> = Vec::new();
        for c in group {
            if stopped() {
                return;
            }
            let mut p = match self.setup(c) {
                Ok(p) => p,
                Err(e) => {
                    self.fail_line(c, "setup", &e.message, e.cannot_hold);
                    continue;
                }
            };
            match self.verify(&mut p) {
                Ok(true) => members.push(p),
                Ok(false) => {
                    self.failed += 1;
                    self.finished += 1;
                }
                Err(e) => self.fail(c, "verify", &e),
            }
        }
        let (benchtime, max_iters, default_count) = (self.benchtime, self.max_iters, self.default_count);
        let mut ms: Vec<Member> = Vec::new();
        let mut idx: Vec<usize> = Vec::new();
        let mut failures: Vec<(usize, String, String)> = Vec::new();
        for (k, p) in members.iter().enumerate() {
            if stopped() {
                return;
            }
            let mut run = make_run(p);
            match measure::calibrate(&mut run, benchtime, max_iters, p.case.no_warmup) {
                Ok(cal) => {
                    log(&format!(
                        "{}: {} iteration(s)/sample after {} calibration run(s)",
                        p.case.id, cal.n, cal.runs
                    ));
                    let c = &p.case;
                    ms.push(Member {
                        run,
                        n: cal.n,
                        count: if c.count > 0 { c.count } else { default_count.max(1) },
                        min_count: c.min_count.max(1),
                        budget_ns: c.budget_ns,
                        per_round: c.per_round,
                        pending: cal.first_sample,
                        samples: 0,
                        total_ns: 0,
                        failed: false,
                    });
                    idx.push(k);
                }
                Err(e) => failures.push((k, "calibrate".into(), e)),
            }
        }
        for (k, phase, e) in failures {
            let c = members[k].case.clone();
            self.fail(&c, &phase, &e);
        }
        let bytes: Vec<u64> = idx.iter().map(|&k| members[k].encoded.len() as u64).collect();
        let ids: Vec<String> = idx.iter().map(|&k| members[k].case.id.clone()).collect();
        let mut failed_in_rounds: Vec<(usize, String)> = Vec::new();
        let done = measure::rounds(
            &mut ms,
            &mut |i, rnd, order, iters, t: Timed| {
                let it = iters.max(1) as f64;
                let mut sample = json!({
                    "type": "sample", "case": ids[i], "round": rnd, "order": order, "iters": iters,
                    "ns_per_op": (t.ns.max(1)) as f64 / it, "bytes_per_op": bytes[i],
                    "alloc_bytes_per_op": t.alloc_bytes as f64 / it, "allocs_per_op": t.allocs as f64 / it,
                });
                if let Some(k) = t.counts {
                    // Under callgrind: the loop's counts per op, which
                    // serbench turns into the case's instruction counts.
                    sample["metrics"] = json!({
                        "callgrind-ir": k.ir as f64 / it,
                        "callgrind-est-cycles": k.est_cycles as f64 / it,
                        "callgrind-l1-misses": k.l1_misses as f64 / it,
                        "callgrind-ll-misses": k.ll_misses as f64 / it,
                        "callgrind-branch-misses": k.branch_misses as f64 / it,
                    });
                }
                line(&sample);
            },
            &mut |i, e| failed_in_rounds.push((i, e)),
            &stopped,
        );
        let failed_ids: BTreeSet<usize> = failed_in_rounds.iter().map(|(i, _)| *i).collect();
        for (i, e) in failed_in_rounds {
            let c = members[idx[i]].case.clone();
            self.fail(&c, "sample", &e);
        }
        if done {
            for i in 0..ms.len() {
                if !failed_ids.contains(&i) {
                    self.finished += 1;
                }
            }
        }
    }

    /// The case's path, resolved against WORK; it must lie under WORK/tmp.
    #[cfg(feature = "subjects")]
    fn file_path(&self, c: &Case) -> Res<PathBuf> {
        if c.path.is_empty() {
            return Err(format!("op {} without a path", c.op));
        }
        let p = Path::new(&c.path);
        let mut comps = p.components();
        let first_tmp = matches!(comps.next(), Some(std::path::Component::Normal(x)) if x == "tmp");
        if !first_tmp
            || p.components().count() < 2
            || !p.components().all(|x| matches!(x, std::path::Component::Normal(_)))
        {
            return Err(format!("path {:?} is not under WORK/tmp", c.path));
        }
        let tmp = std::fs::canonicalize(self.work.join("tmp")).map_err(|e| format!("WORK/tmp: {e}"))?;
        let full = self.work.join(p);
        let parent = full
            .parent()
            .map(std::fs::canonicalize)
            .transpose()
            .map_err(|e| format!("path {}: {e}", c.path))?;
        if !parent.is_some_and(|d| d.starts_with(&tmp)) {
            return Err(format!("path {:?} is not under WORK/tmp", c.path));
        }
        Ok(full)
    }

    /// §10 without the built-in subjects: no subject has the file ops.
    #[cfg(not(feature = "subjects"))]
    fn file_case(&mut self, c: &Case) {
        self.fail(c, "setup", &format!("unknown op {} for subject {}", c.op, c.subject));
    }

    /// §10: export (write the file, read it back) or import (read it);
    /// one verify line with the read's digest and the one run's time.
    #[cfg(feature = "subjects")]
    fn file_case(&mut self, c: &Case) {
        let setup = (|| -> Res<(PathBuf, Arc<Dataset>, crate::files::FileCtx)> {
            if let Some(k) = c.params.keys().next() {
                return Err(format!("unknown params key {k}"));
            }
            if !c.codec.is_empty() && c.codec != "none" {
                return Err(format!("op {} takes no codec (got {})", c.op, c.codec));
            }
            let s = self
                .subjects
                .iter()
                .find(|s| s.name == c.subject)
                .ok_or_else(|| format!("unknown subject {}", c.subject))?;
            if !s.has_op(&c.op) || !s.files {
                return Err(format!("unknown op {} for subject {}", c.op, c.subject));
            }
            let path = self.file_path(c)?;
            let ds = self.dataset(&c.dataset)?;
            let ctx = crate::files::prepare(&c.subject, &ds)?;
            Ok((path, ds, ctx))
        })();
        let (path, ds, ctx) = match setup {
            Ok(x) => x,
            Err(e) => return self.fail(c, "setup", &e),
        };
        let mut what = if c.op == "export" { "write" } else { "read" };
        let res = (|| -> Res<(u64, serde_json::Value)> {
            let t0 = std::time::Instant::now();
            let elapsed;
            let read = if c.op == "export" {
                crate::files::write_file(&c.subject, &ds, &ctx, &path)?;
                elapsed = t0.elapsed().as_nanos() as u64;
                what = "reading its own file back";
                crate::files::read_file(&c.subject, &ds, &ctx, &path)?
            } else {
                let r = crate::files::read_file(&c.subject, &ds, &ctx, &path)?;
                elapsed = t0.elapsed().as_nanos() as u64;
                r
            };
            let rows = crate::files::rows(&ctx, read)?;
            if rows.len() != ds.num_rows() {
                return Err(format!("read {} rows, want {}", rows.len(), ds.num_rows()));
            }
            Ok((elapsed, crate::digest::digest_rows(&ds.ty, &rows, None)?))
        })();
        match res {
            Ok((elapsed, dg)) => {
                let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                line(
                    &json!({"type": "verify", "case": c.id, "ok": true, "encoded_bytes": size, "elapsed_ns": elapsed, "digest": dg}),
                );
                self.finished += 1;
            }
            Err(e) => {
                line(
                    &json!({"type": "verify", "case": c.id, "ok": false, "reason": format!("{} ({what}) failed: {}", c.op, one_line(&e))}),
                );
                self.failed += 1;
                self.finished += 1;
            }
        }
    }

    fn dataset(&mut self, name: &str) -> Res<Arc<Dataset>> {
        if let Some(d) = self.datasets.get(name) {
            return Ok(d.clone());
        }
        if name.is_empty() || name.contains('/') || name.contains('\\') || name == "." || name == ".." {
            return Err(format!("bad dataset name {name:?}"));
        }
        let d = Arc::new(Dataset::read(
            name,
            &self.work.join("datasets").join(name).join("data.arrows"),
        )?);
        self.datasets.insert(name.to_string(), d.clone());
        Ok(d)
    }

    fn setup(&mut self, c: &Case) -> Result<Prepared, SetupError> {
        if let Some(k) = c.params.keys().next() {
            return Err(format!("unknown params key {k}").into());
        }
        if c.op == "copy" || c.subject == "copy" {
            if c.op != "copy" || c.subject != "copy" {
                return Err(format!(
                    "op copy goes with subject copy (got subject {}, op {})",
                    c.subject, c.op
                )
                .into());
            }
            let src = self.kept.get(&c.limit_of).cloned().ok_or_else(|| {
                format!(
                    "limit_of {}: no encoded bytes from that case (unknown or failed)",
                    c.limit_of
                )
            })?;
            return Ok(Prepared {
                case: c.clone(),
                bound: None,
                op: Op::Copy(src.clone()),
                codec: Codec::None,
                encoded: Bytes::from(src.as_ref().clone()),
                ds: None,
            });
        }
        let si = self
            .subjects
            .iter()
            .position(|s| s.name == c.subject)
            .ok_or_else(|| format!("unknown subject {}", c.subject))?;
        if !self.subjects[si].has_op(&c.op) {
            return Err(format!("unknown op {} for subject {}", c.op, c.subject).into());
        }
        let codec = Codec::parse(&c.codec)?;
        if c.op == "query" && c.query.trim().is_empty() {
            return Err("op query without a query".into());
        }
        let ds = self.dataset(&c.dataset)?;
        let mut bound = (self.subjects[si].bind)(&ds)?;
        let op = match c.op.as_str() {
            "encode" => Op::Encode,
            "decode" => Op::Decode(None),
            "query" => {
                let p = projection::parse(&c.query, &ds.ty)?;
                bound.prepare_query(&p)?;
                Op::Decode(Some(p))
            }
            o => return Err(format!("unknown op {o}").into()),
        };
        let enc = bound.setup_encode()?;
        let encoded = match codec {
            Codec::None => match enc {
                Enc::Vec(v) => Bytes::from(v),
                #[cfg(feature = "subjects")]
                Enc::Aligned(v) => Bytes::from_owner(v),
            },
            k => Bytes::from(k.compress(enc.as_slice())?),
        };
        Ok(Prepared {
            case: c.clone(),
            bound: Some(bound),
            op,
            codec,
            encoded,
            ds: Some(ds),
        })
    }

    fn verify(&mut self, p: &mut Prepared) -> Res<bool> {
        let c = &p.case;
        if let Op::Copy(src) = &p.op {
            let mut dst = vec![0u8; src.len()];
            dst.copy_from_slice(src);
            if dst[..] != src[..] {
                line(
                    &json!({"type": "verify", "case": c.id, "ok": false, "reason": "the copy differs from its source"}),
                );
                return Ok(false);
            }
            line(&json!({"type": "verify", "case": c.id, "ok": true, "encoded_bytes": src.len(), "digest": null}));
            return Ok(true);
        }
        let bound = p.bound.as_ref().ok_or("no subject")?;
        let ds = p.ds.as_ref().ok_or("no dataset")?;
        let proj = match &p.op {
            Op::Decode(q) => q.as_ref(),
            _ => None,
        };
        let result = (|| -> Res<(Ty, Vec<crate::value::Value>)> {
            let raw = match p.codec.decompress(&p.encoded)? {
                std::borrow::Cow::Borrowed(_) => p.encoded.clone(),
                std::borrow::Cow::Owned(v) => Bytes::from(v),
            };
            let d = match proj {
                Some(q) => bound.query(&raw, q)?,
                None => bound.decode(&raw)?,
            };
            let ty = match (&d, proj) {
                (Decoded::Batches(bs), _) if !bs.is_empty() => {
                    Ty::of_schema(&bs[0].schema()).map_err(|e| e.to_string())?
                }
                (_, Some(q)) => q.ty.clone(),
                _ => (*ds.ty).clone(),
            };
            Ok((ty, bound.rows(&raw, d)?))
        })();
        let (ty, rows) = match result {
            Ok(x) => x,
            Err(e) => {
                line(
                    &json!({"type": "verify", "case": c.id, "ok": false, "reason": format!("round trip failed: {}", one_line(&e))}),
                );
                return Ok(false);
            }
        };
        if rows.len() != ds.num_rows() {
            line(&json!({"type": "verify", "case": c.id, "ok": false,
                "reason": format!("round trip gave {} rows, want {}", rows.len(), ds.num_rows())}));
            return Ok(false);
        }
        let dg = crate::digest::digest_rows(&ty, &rows, proj.map(|q| &q.leaves))?;
        drop(rows);
        line(&json!({"type": "verify", "case": c.id, "ok": true, "encoded_bytes": p.encoded.len(), "digest": dg}));
        if self.limit_targets.contains(&c.id) {
            self.kept.insert(c.id.clone(), Arc::new(p.encoded.to_vec()));
        }
        Ok(true)
    }
}

/// The timed loop of a prepared member.
fn make_run(p: &Prepared) -> Run<'_> {
    match &p.op {
        Op::Copy(src) => {
            let src = src.clone();
            let mut dst = vec![0u8; src.len()];
            Box::new(move |n| {
                measure::time_loop(n, || {
                    dst.copy_from_slice(black_box(&src[..]));
                    Ok(black_box(dst.as_ptr()))
                })
            })
        }
        Op::Encode => {
            let b = p.bound.as_ref().expect("bound");
            let codec = p.codec;
            Box::new(move |n| {
                measure::time_loop(n, || {
                    let e = b.encode()?;
                    match codec {
                        Codec::None => Ok(e.as_slice().len()),
                        k => Ok(k.compress(e.as_slice())?.len()),
                    }
                })
            })
        }
        Op::Decode(q) => {
            let b = p.bound.as_ref().expect("bound");
            let codec = p.codec;
            let enc = p.encoded.clone();
            Box::new(move |n| {
                measure::time_loop(n, || {
                    let raw = match codec {
                        Codec::None => enc.clone(),
                        k => Bytes::from(k.decompress(&enc)?.into_owned()),
                    };
                    match q {
                        Some(q) => b.query(&raw, q),
                        None => b.decode(&raw),
                    }
                })
            })
        }
    }
}
