package dev.serbench.runner.measure;

import java.math.BigInteger;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * A case's iteration count: the runner's JIT warm-up rule (README.md), then §4.3 step 2 verbatim
 * (testing.B's rule, integer arithmetic).
 *
 * <p>Warm-up rule (skipped with {@code no_warmup}): before calibrating, run untimed batches of the
 * op, doubling the batch size while a batch takes less than {@code min(benchtime/10, 10 ms)}, until
 * three consecutive batches of at least that duration agree pairwise (each with the one before)
 * within 5% in ns/op, or the warm-up has taken {@code max(10 × benchtime, 1 s)}. The calibration
 * then predicts the iteration count from warmed code instead of from interpreted and C1 code,
 * which would make the count (and every sample) far shorter than benchtime.
 */
public final class Calibration {
  /** Two batches agree when their ns/op differ by at most this fraction of the smaller. */
  public static final double AGREE = 0.05;
  /** Agreements in a row that end the warm-up. */
  public static final int AGREEMENTS = 2;
  /** Warm-up cap: this many sample times, and at least {@link #MIN_CAP_NS}. */
  public static final int CAP_SAMPLES = 10;
  public static final long MIN_CAP_NS = 1_000_000_000L;
  /** A batch counts for stability when it lasts min(benchtime/10, this). */
  public static final long BATCH_NS = 10_000_000L;

  /** The outcome: the iteration count and, with no_warmup, the first run kept as a sample. */
  public record Result(long n, Loop.Timing firstSample, int calibrationRuns, int warmupBatches,
      long warmupNs, boolean stable) {}

  private Calibration() {}

  static void check(BooleanSupplier stop) {
    if (stop.getAsBoolean()) {
      throw new CancellationException("stopped");
    }
  }

  /** testing.B's prediction of the next iteration count (§4.3). */
  public static long next(long benchtime, long n, long elapsed, long maxIters) {
    long e = Math.max(elapsed, 1);
    long next;
    long hi = Math.multiplyHigh(benchtime, n);
    long lo = benchtime * n;
    if (hi == 0 && lo >= 0) {
      next = lo / e;
    } else {
      next = BigInteger.valueOf(benchtime).multiply(BigInteger.valueOf(n)).divide(BigInteger.valueOf(e))
          .min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
    }
    next += next / 5;
    next = Math.min(next, 100 * n);
    next = Math.max(next, n + 1);
    next = Math.min(next, maxIters);
    return next;
  }

  public static Result run(Loop loop, long benchtime, long maxIters, boolean noWarmup) throws Exception {
    return run(loop, benchtime, maxIters, noWarmup, () -> false);
  }

  /**
   * As {@link #run(Loop, long, long, boolean)}; throws CancellationException between runs once
   * {@code stop} says so.
   */
  public static Result run(Loop loop, long benchtime, long maxIters, boolean noWarmup, BooleanSupplier stop)
      throws Exception {
    int batches = 0;
    long spent = 0;
    boolean stable = false;
    if (!noWarmup) {
      long cap = Math.max((long) CAP_SAMPLES * benchtime, MIN_CAP_NS);
      long minBatch = Math.min(benchtime / 10, BATCH_NS);
      long m = 1;
      double prev = Double.NaN;
      int agreed = 0;
      while (spent < cap) {
        check(stop);
        Loop.Timing t = loop.time(m);
        batches++;
        spent += t.ns();
        if (t.ns() < minBatch && m < maxIters) {
          m = Math.min(m * 2, maxIters);
          prev = Double.NaN;
          agreed = 0;
          continue;
        }
        double cur = t.nsPerOp();
        if (!Double.isNaN(prev) && Math.abs(cur - prev) <= AGREE * Math.min(cur, prev)) {
          if (++agreed >= AGREEMENTS) {
            stable = true;
            break;
          }
        } else {
          agreed = 0;
        }
        prev = cur;
      }
    }
    // §4.3 step 2
    long n = 1;
    Loop.Timing t = loop.time(n);
    int runs = 1;
    if (noWarmup && t.ns() >= benchtime) {
      return new Result(1, t, 1, batches, spent, stable);
    }
    while (t.ns() < benchtime && n < maxIters) {
      check(stop);
      n = next(benchtime, n, t.ns(), maxIters);
      t = loop.time(n);
      runs++;
    }
    if (runs == 1 && t.ns() < 10 * benchtime) {
      loop.time(n); // the last run was the first: once more, untimed
    }
    return new Result(n, null, runs, batches, spent, stable);
  }
}
