package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.kit.Subject;
import dev.serbench.runner.measure.Loop;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The seed's {@code -par} reader for a row format: the rows are encoded in batches of {@link
 * #BATCH} rows, each batch on its own, and the batches are concatenated behind a table of their
 * lengths; a decode splits the bytes at those lengths on the calling thread and decodes the
 * batches on a fixed pool of as many threads as the JVM has processors (as Go's {@code -par}
 * readers use GOMAXPROCS goroutines), then collects them in order. Each decoding thread has its own
 * instance of the subject (Kryo and Fory instances are not thread-safe; Go's readers also give each
 * goroutine its own decoder). Encoding stays sequential: the seed parallelised reading.
 */
public final class ParallelSubject implements Subject {
  /** Rows per batch, the Go side's {@code nested.ParBatch}. */
  public static final int BATCH = 256;

  private final Supplier<Subject> factory;
  private final Subject base;
  private final int threads;

  /** The subject {@code factory} makes, read on a pool of {@code threads} decoding threads. */
  public ParallelSubject(Supplier<Subject> factory, int threads) {
    this.factory = factory;
    this.base = factory.get();
    this.threads = threads;
  }

  @Override
  public String name() {
    return base.name() + "-par";
  }

  @Override
  public String format() {
    return base.format();
  }

  @Override
  public String library() {
    return base.library();
  }

  @Override
  public String version() {
    return base.version();
  }

  @Override
  public List<String> ops() {
    return List.of("encode", "decode");
  }

  @Override
  public boolean anySchema() {
    return base.anySchema();
  }

  @Override
  public Map<String, String> labels() {
    Map<String, String> m = new LinkedHashMap<>(base.labels());
    m.put("threads", Integer.toString(threads));
    m.put("batch_rows", Integer.toString(BATCH));
    return m;
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) throws Exception {
    Bound b = base.bind(ds, tmp);
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "serbench-par");
      t.setDaemon(true);
      return t;
    });
    // Each pool thread's own subject, bound on its first batch (in the
    // warm-up: calibration runs every member before it is timed).
    List<Bound> bounds = new CopyOnWriteArrayList<>();
    ThreadLocal<Bound> own = ThreadLocal.withInitial(() -> {
      try {
        Bound tb = factory.get().bind(ds, tmp);
        bounds.add(tb);
        return tb;
      } catch (Exception e) {
        throw new IllegalStateException("par: bind a decoding thread's subject: " + e, e);
      }
    });
    return new Bound() {
      @Override
      public Object prepare(List<Map<String, Object>> rows) throws Exception {
        List<Object> batches = new ArrayList<>();
        for (int i = 0; i < rows.size(); i += BATCH) {
          // A list of its own: libraries that dispatch on the class (Kryo's
          // registrations, Fressian's handlers) do not know a subList view.
          batches.add(b.prepare(new ArrayList<>(rows.subList(i, Math.min(rows.size(), i + BATCH)))));
        }
        return batches;
      }

      @Override
      @SuppressWarnings("unchecked")
      public byte[] encode(Object natives) throws Exception {
        List<Object> batches = (List<Object>) natives;
        byte[][] parts = new byte[batches.size()][];
        int total = 4 + 4 * parts.length;
        for (int i = 0; i < parts.length; i++) {
          parts[i] = b.encode(batches.get(i));
          total += parts[i].length;
        }
        ByteBuffer out = ByteBuffer.allocate(total);
        out.putInt(parts.length);
        for (byte[] p : parts) {
          out.putInt(p.length);
        }
        for (byte[] p : parts) {
          out.put(p);
        }
        return out.array();
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int n = in.getInt();
        if (n < 0 || n > (bytes.length - 4) / 4) {
          throw new IllegalArgumentException("par: bad batch count " + n);
        }
        int[] lens = new int[n];
        for (int i = 0; i < n; i++) {
          lens[i] = in.getInt();
        }
        List<Future<Object>> futures = new ArrayList<>(n);
        int off = 4 + 4 * n;
        for (int i = 0; i < n; i++) {
          if (lens[i] < 0 || off + lens[i] > bytes.length) {
            throw new IllegalArgumentException("par: batch " + i + " runs past the end");
          }
          byte[] part = Arrays.copyOfRange(bytes, off, off + lens[i]);
          off += lens[i];
          futures.add(pool.submit(() -> Loop.onHelper(() -> own.get().decode(part))));
        }
        List<Object> out = new ArrayList<>(n);
        for (Future<Object> f : futures) {
          try {
            out.add(f.get());
          } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
          }
        }
        return out;
      }

      @Override
      @SuppressWarnings("unchecked")
      public Object decodeTimed(byte[] bytes) throws Exception {
        List<Object> decoded = (List<Object>) decode(bytes);
        for (Object d : decoded) {
          b.release(d);
        }
        return decoded;
      }

      @Override
      @SuppressWarnings("unchecked")
      public List<?> rows(Object decoded) throws Exception {
        List<Object> out = new ArrayList<>();
        for (Object d : (List<Object>) decoded) {
          out.addAll(b.rows(d));
        }
        return out;
      }

      @Override
      public dev.serbench.runner.digest.Nav nav() {
        return b.nav();
      }

      @Override
      @SuppressWarnings("unchecked")
      public void release(Object o) throws Exception {
        for (Object d : (List<Object>) o) {
          b.release(d);
        }
      }

      @Override
      public void close() throws Exception {
        pool.shutdownNow();
        for (Bound tb : bounds) {
          tb.close();
        }
        b.close();
      }
    };
  }
}
