package dev.serbench.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.serbench.runner.arrow.ArrowRows;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.kit.CannotHold;
import dev.serbench.runner.measure.Calibration;
import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.measure.Loop;
import dev.serbench.runner.kit.Projection;
import dev.serbench.runner.kit.Subject;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code run}: every case of cases.jsonl, group by group (§4). */
public final class Runner {
  private static final ObjectMapper M = new ObjectMapper();

  private final Out out;
  private final PrintStream log;
  private final Path work;
  private final Map<String, Subject> subjects;
  private volatile boolean stop;

  private long benchtime;
  private long maxIters;
  private int defaultCount;

  private int finished;
  private int failed;

  private final Map<String, Dataset> datasets = new HashMap<>();
  private final Map<String, byte[]> kept = new HashMap<>();
  /** Case ids named by limit_of, with the number of copy cases still to set up. */
  private final Map<String, Integer> limitTargets = new HashMap<>();

  public Runner(Out out, PrintStream log, Path work, Map<String, Subject> subjects) {
    this.out = out;
    this.log = log;
    this.work = work;
    this.subjects = subjects;
  }

  /** Asks the runner to stop at the next sample boundary. */
  public void requestStop() {
    stop = true;
  }

  public int finished() {
    return finished;
  }

  public int failed() {
    return failed;
  }

  /** The runner-level failure of a work directory (an error line without case). */
  public static final class WorkError extends Exception {
    public WorkError(String m, Throwable cause) {
      super(m, cause);
    }
  }

  /** Reads the work directory and runs every case. */
  public void run() throws WorkError {
    List<CaseSpec> cases = new ArrayList<>();
    try {
      JsonNode rj = M.readTree(work.resolve("run.json").toFile());
      benchtime = rj.path("benchtime_ns").asLong(1_000_000_000L);
      maxIters = rj.path("max_iters").asLong(1_000_000_000L);
      defaultCount = rj.path("count").asInt(1);
      if (benchtime <= 0 || maxIters <= 0) {
        throw new WorkError("run.json: benchtime_ns and max_iters must be positive", null);
      }
      int lineNo = 0;
      for (String line : Files.readAllLines(work.resolve("cases.jsonl"), StandardCharsets.UTF_8)) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        try {
          cases.add(CaseSpec.parse(M.readTree(line)));
        } catch (IOException | IllegalArgumentException e) {
          throw new WorkError("cases.jsonl line " + lineNo + ": " + e.getMessage(), e);
        }
      }
    } catch (IOException e) {
      throw new WorkError("unreadable work directory " + work + ": " + Out.oneLine(e), e);
    }
    for (CaseSpec c : cases) {
      if (!c.limitOf().isEmpty()) {
        limitTargets.merge(c.limitOf(), 1, Integer::sum);
      }
    }
    int i = 0;
    while (i < cases.size() && !stop) {
      int j = i + 1;
      String g = cases.get(i).group();
      if (!g.isEmpty()) {
        while (j < cases.size() && cases.get(j).group().equals(g)) {
          j++;
        }
      }
      runGroup(cases.subList(i, j));
      i = j;
    }
  }

  /** A member of a group being measured. */
  static final class Member {
    final CaseSpec c;
    Subject.Bound bound;
    Loop loop;
    long n;
    long bytesPerOp;
    int count;
    int minCount;
    int samples;
    long totalNs;
    boolean failed;
    Loop.Timing pending;
    // from setup to verify
    byte[] copySrc;
    byte[] encoded;
    Projection proj;
    Codec codec;
    Dataset ds;

    Member(CaseSpec c) {
      this.c = c;
    }

    boolean wants() {
      if (failed || samples >= count) {
        return false;
      }
      return samples < minCount || c.budgetNs() <= 0 || totalNs < c.budgetNs();
    }

    void close() {
      if (bound != null) {
        try {
          bound.close();
        } catch (Exception e) {
          // ignore
        }
        bound = null;
      }
      loop = null;
    }
  }

  /** How much the heap in use may grow past liveHeap before a turn collects (collectGarbage). */
  static final long GARBAGE_SLACK = 16L << 20;

  /** The heap in use after the last full collection (its live data); -1 before the first. */
  private long liveHeap = -1;

  private void error(CaseSpec c, String phase, String message) {
    out.line(Out.obj("type", "error", "case", c.id(), "phase", phase, "message", message));
  }

  /** The error line of t; a {@link CannotHold} among its causes says cannot_hold. */
  private void error(CaseSpec c, String phase, Throwable t) {
    if (CannotHold.in(t)) {
      out.line(Out.obj("type", "error", "case", c.id(), "phase", phase, "message", Out.oneLine(t),
          "cannot_hold", true));
      return;
    }
    error(c, phase, Out.oneLine(t));
  }

  private void runGroup(List<CaseSpec> group) {
    // keep only the datasets this group uses
    Set<String> used = new HashSet<>();
    for (CaseSpec c : group) {
      used.add(c.dataset());
    }
    datasets.keySet().retainAll(used);

    List<Member> members = new ArrayList<>();
    try {
      for (CaseSpec c : group) {
        if (stop) {
          return;
        }
        if (FILE_OPS.contains(c.op())) {
          fileCase(c);
          continue;
        }
        Member m = new Member(c);
        try {
          setup(m);
        } catch (Throwable t) {
          error(c, "setup", t);
          m.close();
          failed++;
          finished++;
          continue;
        }
        try {
          if (!verify(m)) {
            m.close();
            failed++;
            finished++;
            continue;
          }
        } catch (Throwable t) {
          error(c, "verify", t);
          m.close();
          failed++;
          finished++;
          continue;
        }
        members.add(m);
      }
      for (Member m : members) {
        if (stop) {
          return;
        }
        try {
          gc();
          Calibration.Result r = Calibration.run(m.loop, benchtime, maxIters, m.c.noWarmup(), () -> stop);
          m.n = r.n();
          m.pending = r.firstSample();
          log.printf("serbench-runner: %s: warm-up %d batch(es) in %.1f ms%s; %d iteration(s)/sample after %d calibration run(s)%n",
              m.c.id(), r.warmupBatches(), r.warmupNs() / 1e6,
              r.warmupBatches() == 0 ? "" : (r.stable() ? " (stable within 5%)" : " (cap reached, not stable)"),
              m.n, r.calibrationRuns());
        } catch (java.util.concurrent.CancellationException e) {
          return; // interrupted: the group is abandoned
        } catch (Throwable t) {
          fail(m, "calibrate", t);
        }
      }
      rounds(members);
      for (Member m : members) {
        if (!m.failed) {
          finished++;
        }
      }
    } finally {
      for (Member m : members) {
        m.close();
      }
    }
  }

  private void fail(Member m, String phase, Throwable t) {
    m.failed = true;
    m.close();
    error(m.c, phase, t);
    failed++;
    finished++;
  }

  private void rounds(List<Member> members) {
    int mm = members.size();
    if (mm == 0) {
      return;
    }
    Member last = null;
    for (int round = 0; !stop; round++) {
      List<Member> order = new ArrayList<>();
      for (int k = 0; k < mm; k++) {
        Member m = members.get((k + round) % mm);
        if (m.wants()) {
          order.add(m);
        }
      }
      if (order.isEmpty()) {
        return;
      }
      if (order.size() > 1 && order.get(0) == last) {
        order.add(order.remove(0));
      }
      for (int pos = 0; pos < order.size(); pos++) {
        if (stop) {
          return;
        }
        Member m = order.get(pos);
        try {
          if (m.pending != null) {
            Loop.Timing t = m.pending;
            m.pending = null;
            emit(m, round + 1, pos, t, null);
          } else if (m.c.perRound() > 1) {
            collectGarbage();
            m.loop.time(m.n); // untimed run before the burst
            for (int s = 0; s < m.c.perRound() && m.wants() && !stop; s++) {
              long g0 = gcNanos();
              Loop.Timing t = m.loop.time(m.n);
              emit(m, round + 1, pos, t, gcNanos() - g0);
            }
          } else {
            collectGarbage();
            long g0 = gcNanos();
            Loop.Timing t = m.loop.time(m.n);
            emit(m, round + 1, pos, t, gcNanos() - g0);
          }
        } catch (Throwable t) {
          fail(m, "sample", t);
        }
        last = m;
      }
    }
  }

  private void emit(Member m, int round, int order, Loop.Timing t, Long gcNs) {
    m.samples++;
    m.totalNs += t.ns();
    Map<String, Object> line = Out.obj("type", "sample", "case", m.c.id(), "round", round, "order", order,
        "iters", t.iters(), "ns_per_op", t.nsPerOp(), "bytes_per_op", m.bytesPerOp,
        "alloc_bytes_per_op", t.allocPerOp(), "allocs_per_op", null);
    if (gcNs != null) {
      line.put("metrics", Out.obj("gc_ns_per_op", (double) gcNs / t.iters()));
    }
    out.line(line);
  }

  private void gc() {
    System.gc();
    liveHeap = heapUsed();
  }

  /**
   * The collection before a turn: a full collection when the turns since the last one left
   * garbage (the heap in use grew by GARBAGE_SLACK or more), else none. A full collection
   * costs time in proportion to everything the group holds (each member's encoded input),
   * whatever the last turn left; a turn that allocated less than the slack (a copy, an Arrow
   * read of a few buffers) leaves the next member at most that much of eden's gigabyte
   * filled, which moves its next young collection by as little. Reports whether it collected.
   */
  boolean collectGarbage() {
    if (liveHeap < 0 || heapUsed() - liveHeap >= GARBAGE_SLACK) {
      gc();
      return true;
    }
    return false;
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long gcNanos() {
    long ms = 0;
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
      long t = b.getCollectionTime();
      if (t > 0) {
        ms += t;
      }
    }
    return ms * 1_000_000L;
  }

  private Dataset dataset(String name) throws IOException {
    Dataset d = datasets.get(name);
    if (d == null) {
      if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.equals("..")) {
        throw new IOException("bad dataset name \"" + name + "\"");
      }
      Path p = work.resolve("datasets").resolve(name).resolve("data.arrows");
      d = ArrowRows.read(name, p);
      datasets.put(name, d);
    }
    return d;
  }

  /** The optional file ops (§10). */
  static final List<String> FILE_OPS = Subject.FILE_OPS;

  /** A file case's path, resolved against the work directory; it must lie under WORK/tmp. */
  Path filePath(CaseSpec c) throws IOException {
    if (c.path().isEmpty()) {
      throw new IllegalArgumentException("op " + c.op() + " without a path");
    }
    Path tmp = work.resolve("tmp").toRealPath();
    Path p = work.resolve(c.path()).normalize();
    Path parent = p.getParent() == null ? null : p.getParent().toRealPath();
    if (parent == null || !parent.startsWith(tmp)) {
      throw new IllegalArgumentException("path " + c.path() + " is not under WORK/tmp");
    }
    return parent.resolve(p.getFileName());
  }

  /**
   * export: writes the dataset to the case's path as the subject's format's file and reads it
   * back; import: reads the file at the path. Both report the digest of what was read (through the
   * dataset's schema) and the file's size; neither is timed.
   */
  private void fileCase(CaseSpec c) {
    Subject.Bound b = null;
    try {
      Path path;
      Dataset ds;
      Object natives = null;
      try {
        if (!c.paramKeys().isEmpty()) {
          throw new IllegalArgumentException("unknown params key " + c.paramKeys().get(0));
        }
        if (!c.codec().isEmpty() && !c.codec().equals("none")) {
          throw new IllegalArgumentException("op " + c.op() + " takes no codec (got " + c.codec() + ")");
        }
        Subject s = subjects.get(c.subject());
        if (s == null) {
          throw new IllegalArgumentException("unknown subject " + c.subject());
        }
        if (!s.ops().contains(c.op())) {
          throw new IllegalArgumentException("unknown op " + c.op() + " for subject " + c.subject());
        }
        path = filePath(c);
        ds = dataset(c.dataset());
        b = s.bind(ds, work.resolve("tmp"));
        if (c.op().equals("export")) {
          natives = b.prepare(ds.rows());
        }
      } catch (Throwable t) {
        error(c, "setup", t);
        failed++;
        finished++;
        return;
      }
      String what = c.op().equals("export") ? "write" : "read";
      Digest.Result r;
      long elapsed;
      try {
        long t0 = System.nanoTime();
        Object read;
        if (natives != null) {
          b.writeFile(natives, path);
          elapsed = System.nanoTime() - t0;
          natives = null;
          what = "reading its own file back";
          read = b.readFile(path);
        } else {
          read = b.readFile(path);
          elapsed = System.nanoTime() - t0;
        }
        List<?> rows = b.fileRows(read);
        if (rows.size() != ds.size()) {
          throw new IllegalStateException("read " + rows.size() + " rows, want " + ds.size());
        }
        r = Digest.digest(ds.schema(), rows, b.fileNav(), null);
      } catch (Throwable t) {
        out.line(Out.obj("type", "verify", "case", c.id(), "ok", false,
            "reason", c.op() + " (" + what + ") failed: " + Out.oneLine(t)));
        failed++;
        finished++;
        return;
      }
      List<Map<String, Object>> cols = new ArrayList<>();
      for (Digest.Column col : r.columns()) {
        cols.add(Out.obj("path", col.path(), "digest", col.digest()));
      }
      out.line(Out.obj("type", "verify", "case", c.id(), "ok", true, "encoded_bytes", Files.size(path),
          "elapsed_ns", elapsed, "digest", Out.obj("rows", r.rows(), "table", r.table(), "columns", cols)));
      finished++;
    } catch (IOException e) {
      out.line(Out.obj("type", "verify", "case", c.id(), "ok", false, "reason", c.op() + ": " + Out.oneLine(e)));
      failed++;
      finished++;
    } finally {
      if (b != null) {
        try {
          b.close();
        } catch (Exception e) {
          // closing
        }
      }
    }
  }

  /** Setup (§4.1): dataset, native objects, encoded input; unknown subject/op/codec/params fail. */
  private void setup(Member m) throws Exception {
    CaseSpec c = m.c;
    m.count = c.count() > 0 ? c.count() : Math.max(defaultCount, 1);
    m.minCount = c.minCount() > 0 ? c.minCount() : 1;
    if (c.perRound() < 0) {
      throw new IllegalArgumentException("per_round " + c.perRound());
    }
    if (!c.paramKeys().isEmpty()) {
      throw new IllegalArgumentException("unknown params key " + c.paramKeys().get(0));
    }
    if (c.op().equals("copy") || c.subject().equals("copy")) {
      if (!c.op().equals("copy") || !c.subject().equals("copy")) {
        throw new IllegalArgumentException("op copy goes with subject copy (got subject " + c.subject() + ", op " + c.op() + ")");
      }
      byte[] src = kept.get(c.limitOf());
      if (limitTargets.merge(c.limitOf(), -1, Integer::sum) <= 0) {
        kept.remove(c.limitOf()); // the last copy of it: the loop keeps its own reference
      }
      if (src == null) {
        throw new IllegalArgumentException("limit_of " + c.limitOf() + ": no encoded bytes from that case (unknown or failed)");
      }
      m.copySrc = src;
      Loop.CopyLoop cl = new Loop.CopyLoop(src);
      m.loop = cl;
      m.bytesPerOp = src.length;
      return;
    }
    Subject s = subjects.get(c.subject());
    if (s == null) {
      throw new IllegalArgumentException("unknown subject " + c.subject());
    }
    if (!s.ops().contains(c.op())) {
      throw new IllegalArgumentException("unknown op " + c.op() + " for subject " + c.subject());
    }
    Codec codec = Codec.parse(c.codec());
    if (c.op().equals("query") && c.query().isBlank()) {
      throw new IllegalArgumentException("op query without a query");
    }
    Dataset ds = dataset(c.dataset());
    Projection proj = c.op().equals("query") ? Projection.parse(c.query(), ds.schema()) : null;
    Path tmp = work.resolve("tmp");
    m.bound = s.bind(ds, tmp);
    Subject.Bound b = m.bound;
    Object natives = b.prepare(ds.rows());
    byte[] encoded = codec.compress(b.encode(natives));
    m.bytesPerOp = encoded.length;
    m.encoded = encoded;
    m.proj = proj;
    m.codec = codec;
    m.ds = ds;
    switch (c.op()) {
      case "encode":
        m.loop = new Loop.OpLoop(() -> codec.compress(b.encode(natives)));
        break;
      case "decode":
        m.loop = new Loop.OpLoop(() -> b.decodeTimed(codec.decompress(encoded)));
        break;
      case "query":
        m.loop = new Loop.OpLoop(() -> b.queryTimed(codec.decompress(encoded), proj));
        break;
      default:
        throw new IllegalArgumentException("unknown op " + c.op());
    }
  }

  /** Verify (§3.2); false when the line said ok:false. */
  private boolean verify(Member m) throws Exception {
    CaseSpec c = m.c;
    if (m.loop instanceof Loop.CopyLoop cl) {
      byte[] src = m.copySrc;
      cl.time(1);
      if (!Arrays.equals(src, cl.dst())) {
        out.line(Out.obj("type", "verify", "case", c.id(), "ok", false, "reason", "the copy differs from its source"));
        return false;
      }
      out.line(Out.obj("type", "verify", "case", c.id(), "ok", true, "encoded_bytes", src.length, "digest", null));
      return true;
    }
    byte[] encoded = m.encoded;
    Projection proj = m.proj;
    Codec codec = m.codec;
    Dataset ds = m.ds;
    m.encoded = null;
    m.ds = null;
    Subject.Bound b = m.bound;
    Object decoded;
    try {
      byte[] plain = codec.decompress(encoded);
      decoded = proj == null ? b.decode(plain) : b.query(plain, proj);
    } catch (Throwable t) {
      out.line(Out.obj("type", "verify", "case", c.id(), "ok", false, "reason", "round trip failed: " + Out.oneLine(t)));
      return false;
    }
    Digest.Result r;
    try {
      List<?> rows = b.rows(decoded);
      if (rows.size() != ds.size()) {
        out.line(Out.obj("type", "verify", "case", c.id(), "ok", false,
            "reason", "round trip gave " + rows.size() + " rows, want " + ds.size()));
        return false;
      }
      r = Digest.digest(proj == null ? ds.schema() : proj.pruned(), rows, b.nav(), null);
    } finally {
      b.release(decoded);
    }
    List<Map<String, Object>> cols = new ArrayList<>();
    for (Digest.Column col : r.columns()) {
      cols.add(Out.obj("path", col.path(), "digest", col.digest()));
    }
    out.line(Out.obj("type", "verify", "case", c.id(), "ok", true, "encoded_bytes", encoded.length,
        "digest", Out.obj("rows", r.rows(), "table", r.table(), "columns", cols)));
    if (limitTargets.containsKey(c.id())) {
      kept.put(c.id(), encoded);
    }
    return true;
  }
}
