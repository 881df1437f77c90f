package dev.serbench.runner;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes protocol lines: one JSON object per line, flushed at once (§3). */
public final class Out {
  private static final ObjectMapper M = new ObjectMapper()
      .configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
  private final OutputStream out;

  public Out(OutputStream out) {
    this.out = out;
  }

  /** Builds a line's object from key/value pairs (insertion order kept). */
  public static Map<String, Object> obj(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  public synchronized void line(Map<String, Object> m) {
    try {
      byte[] b = M.writeValueAsBytes(m);
      out.write(b);
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A one-line message (no newlines). */
  public static String oneLine(Throwable t) {
    StringBuilder b = new StringBuilder(t.toString());
    Throwable c = t.getCause();
    int depth = 0;
    while (c != null && c != t && depth++ < 4) {
      b.append("; caused by ").append(c);
      t = c;
      c = c.getCause();
    }
    return b.toString().replace('\n', ' ').replace('\r', ' ');
  }
}
