package dev.serbench.runner.measure;

import java.lang.management.ManagementFactory;

/** A timed loop of iterations of one op (§4.4). */
public abstract class Loop {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final boolean ALLOC;

  static {
    boolean ok;
    try {
      if (!THREADS.isThreadAllocatedMemoryEnabled()) {
        THREADS.setThreadAllocatedMemoryEnabled(true);
      }
      ok = THREADS.isThreadAllocatedMemorySupported() && THREADS.getCurrentThreadAllocatedBytes() >= 0;
    } catch (UnsupportedOperationException e) {
      ok = false;
    }
    ALLOC = ok;
  }

  /** Bytes allocated by helper threads (a parallel reader's pool) for the op being timed. */
  private static final java.util.concurrent.atomic.AtomicLong HELPERS = new java.util.concurrent.atomic.AtomicLong();

  /**
   * Runs {@code op} on a helper thread of the op being timed (a parallel reader's pool thread) and
   * counts what it allocates toward the op's allocations: the timed thread's counter alone would
   * miss them.
   */
  public static Object onHelper(Op op) throws Exception {
    long a0 = ALLOC ? THREADS.getCurrentThreadAllocatedBytes() : 0;
    try {
      return op.call();
    } finally {
      if (ALLOC) {
        HELPERS.addAndGet(THREADS.getCurrentThreadAllocatedBytes() - a0);
      }
    }
  }

  /** Whether per-thread allocation counting works (hello's {@code alloc}). */
  public static boolean allocSupported() {
    return ALLOC;
  }

  /** One op, as called by {@link OpLoop}. */
  public interface Op {
    Object call() throws Exception;
  }

  protected final Sink sink = new Sink();

  /** Runs {@code n} iterations, consuming every result. */
  protected abstract void iterations(long n) throws Exception;

  /** The outcome of a timed run. */
  public record Timing(long iters, long ns, long allocBytes) {
    public double nsPerOp() {
      return (double) ns / iters;
    }

    public Double allocPerOp() {
      return allocBytes < 0 ? null : (double) allocBytes / iters;
    }
  }

  /**
   * Times {@code n} iterations: clock and allocation counters (this thread's, and its helpers' via
   * {@link #onHelper}) read once before and after.
   */
  public final Timing time(long n) throws Exception {
    long h0 = HELPERS.get();
    long a0 = ALLOC ? THREADS.getCurrentThreadAllocatedBytes() : -1;
    long t0 = System.nanoTime();
    iterations(n);
    long t1 = System.nanoTime();
    long a1 = ALLOC ? THREADS.getCurrentThreadAllocatedBytes() : -1;
    long h1 = HELPERS.get();
    return new Timing(n, t1 - t0, ALLOC ? a1 - a0 + h1 - h0 : -1);
  }

  /** A loop calling an op. */
  public static final class OpLoop extends Loop {
    private final Op op;

    public OpLoop(Op op) {
      this.op = op;
    }

    @Override
    protected void iterations(long n) throws Exception {
      Op o = op;
      Sink s = sink;
      for (long i = 0; i < n; i++) {
        s.consume(o.call());
      }
    }
  }

  /** The limit row (§4.5): copies {@code src} into a preallocated array of the same length. */
  public static final class CopyLoop extends Loop {
    private final byte[] src;
    private final byte[] dst;

    public CopyLoop(byte[] src) {
      this.src = src;
      this.dst = new byte[src.length];
    }

    public byte[] dst() {
      return dst;
    }

    @Override
    protected void iterations(long n) {
      byte[] a = src;
      byte[] b = dst;
      int len = a.length;
      Sink s = sink;
      for (long i = 0; i < n; i++) {
        System.arraycopy(a, 0, b, 0, len);
        s.consume(b);
      }
    }
  }
}
