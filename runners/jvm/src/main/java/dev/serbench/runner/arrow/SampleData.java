package dev.serbench.runner.arrow;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Deterministic generated datasets in the generic model, for the tests and the JMH check:
 * {@link #mixed} (nested lists, structs, nulls at every level, timestamps, special floats) and
 * {@link #media} (the shape of the nested workload's media Record, as serbench's Arrow mapping
 * writes it: non-null struct and lists, non-null elements).
 */
public final class SampleData {
  private SampleData() {}

  static Field f(String name, boolean nullable, ArrowType t, Field... children) {
    return new Field(name, new FieldType(nullable, t, null), children.length == 0 ? null : Arrays.asList(children));
  }

  static final ArrowType I32 = new ArrowType.Int(32, true);
  static final ArrowType I64 = new ArrowType.Int(64, true);
  static final ArrowType STR = ArrowType.Utf8.INSTANCE;
  static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  /**
   * Rows whose column names are what real files hold and many formats cannot name: spaces, a
   * leading digit, a dot, a quote, a sign, non-ASCII letters.
   */
  public static Dataset awkwardNames(int n) {
    Schema schema = new Schema(List.of(f("US Gross", true, I64), f("1st place", true, STR), f("a.b", true, F64),
        f("quote\"d", true, STR), f("Zoë", true, I32), f("-1x", true, I64), f("plain", false, STR)));
    List<Map<String, Object>> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Map<String, Object> row = new java.util.LinkedHashMap<>();
      row.put("US Gross", i % 3 == 0 ? null : (long) i * 1_000_003L);
      row.put("1st place", "p" + i);
      row.put("a.b", i / 4.0);
      row.put("quote\"d", i % 2 == 0 ? "\"" : "");
      row.put("Zoë", i);
      row.put("-1x", (long) -i);
      row.put("plain", "x");
      rows.add(row);
    }
    return new Dataset("awkward-names-" + n, schema, rows);
  }

  public static Schema mixedSchema() {
    return new Schema(List.of(
        f("id", false, I64),
        f("name", true, STR),
        f("score", true, F64),
        f("ratio", true, F32),
        f("flag", true, ArrowType.Bool.INSTANCE),
        f("small", true, new ArrowType.Int(8, true)),
        f("ts", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
        f("ts_ns", true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
        f("day", true, new ArrowType.Date(DateUnit.DAY)),
        f("tags", true, ArrowType.List.INSTANCE, f("item", true, STR)),
        f("attrs", true, ArrowType.Struct.INSTANCE,
            f("a", true, I32), f("b", false, STR),
            f("inner", true, ArrowType.Struct.INSTANCE, f("x", true, F64))),
        f("items", true, ArrowType.List.INSTANCE,
            f("item", true, ArrowType.Struct.INSTANCE,
                f("k", true, STR), f("v", false, I64),
                f("q", true, ArrowType.List.INSTANCE, f("item", false, I32)))),
        f("matrix", true, ArrowType.List.INSTANCE, f("item", true, ArrowType.List.INSTANCE, f("item", true, I64)))));
  }

  static final String[] WORDS = {"alpha", "beta", "", "gamma δ", "日本語", "emoji 🎉", "nul \u0000 in", "x"};

  static LinkedHashMap<String, Object> map(Object... kv) {
    LinkedHashMap<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  /** {@code n} rows of {@link #mixedSchema}. */
  public static Dataset mixed(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Map<String, Object>> rows = new ArrayList<>(n);
    double[] specials = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e300, -2.5};
    for (int i = 0; i < n; i++) {
      boolean nulls = i % 5 == 4;
      Object score = nulls ? null : (i % 7 == 3 ? specials[(i / 7) % specials.length] : r.nextDouble() * 1e6 - 5e5);
      Object ratio = nulls ? null : (Object) (float) (r.nextInt(1 << 20) / 1024.0f);
      Object ts = nulls ? null : (Object) (1_700_000_000_000_000L + r.nextLong(-1_000_000_000_000L, 1_000_000_000_000L));
      Object tsNs = nulls ? null : (Object) (-1_000L + r.nextLong(-5_000_000L, 5_000_000L));
      List<Object> tags = null;
      if (i % 6 != 5) {
        tags = new ArrayList<>();
        int k = r.nextInt(4);
        for (int j = 0; j < k; j++) {
          tags.add(j == 2 && i % 3 == 0 ? null : WORDS[r.nextInt(WORDS.length)]);
        }
      }
      Object attrs = switch (i % 4) {
        case 0 -> null;
        case 1 -> map("a", null, "b", "", "inner", null);
        case 2 -> map("a", r.nextInt(), "b", WORDS[r.nextInt(WORDS.length)], "inner", map("x", null));
        default -> map("a", -7, "b", "bee", "inner", map("x", r.nextDouble()));
      };
      List<Object> items = null;
      if (i % 8 != 7) {
        items = new ArrayList<>();
        int k = r.nextInt(3);
        for (int j = 0; j < k; j++) {
          if (i % 9 == 2 && j == 0) {
            items.add(null);
            continue;
          }
          List<Object> q = null;
          if (j % 2 == 0) {
            q = new ArrayList<>();
            int qn = r.nextInt(3);
            for (int x = 0; x < qn; x++) {
              q.add(r.nextInt(-1000, 1000));
            }
          }
          items.add(map("k", j == 1 ? null : "k" + r.nextInt(100), "v", r.nextLong(), "q", q));
        }
      }
      List<Object> matrix = null;
      if (i % 3 != 1) {
        matrix = new ArrayList<>();
        int k = r.nextInt(3);
        for (int j = 0; j < k; j++) {
          if (j == 1 && i % 2 == 0) {
            matrix.add(null);
            continue;
          }
          List<Object> row = new ArrayList<>();
          int m = r.nextInt(3);
          for (int x = 0; x < m; x++) {
            row.add(x == 1 && i % 4 == 0 ? null : (Object) (long) r.nextInt());
          }
          matrix.add(row);
        }
      }
      rows.add(map(
          "id", (long) i,
          "name", nulls ? null : "name-" + i + " " + WORDS[i % WORDS.length],
          "score", score,
          "ratio", ratio,
          "flag", nulls ? null : (Object) (i % 2 == 0),
          "small", nulls ? null : (Object) (int) (byte) r.nextInt(),
          "ts", ts,
          "ts_ns", tsNs,
          "day", nulls ? null : (Object) r.nextInt(-20000, 30000),
          "tags", tags,
          "attrs", attrs,
          "items", items,
          "matrix", matrix));
    }
    return new Dataset("mixed-" + n, mixedSchema(), rows);
  }

  public static Schema mediaSchema() {
    return new Schema(List.of(
        f("id", false, I64),
        f("media", false, ArrowType.Struct.INSTANCE,
            f("uri", false, STR), f("title", false, STR), f("format", false, STR), f("copyright", false, STR),
            f("width", false, I32), f("height", false, I32), f("duration", false, I32), f("size", false, I32),
            f("bitrate", false, I32), f("player", false, STR),
            f("persons", false, ArrowType.List.INSTANCE, f("element", false, STR))),
        f("images", false, ArrowType.List.INSTANCE,
            f("element", false, ArrowType.Struct.INSTANCE,
                f("uri", false, STR), f("title", false, STR), f("size", false, STR),
                f("width", false, I32), f("height", false, I32)))));
  }

  static final String[] NAMES = {"Joshua Barnes", "Terry Sanders", "Ann Lee", "Bo Chen", "Maria Garcia", "Li Wei"};
  static final String[] TITLES = {"Phasellus sit amet erat.", "Etiam pretium iaculis justo.", "Aliquam erat volutpat.",
      "Nulla ut erat id mauris vulputate elementum.", "Sed ante."};
  static final String[] HOSTS = {"fotki.com", "businessweek.com", "salon.com", "example.org", "nytimes.com"};

  static String url(SplittableRandom r) {
    StringBuilder b = new StringBuilder(r.nextBoolean() ? "https://" : "http://").append(HOSTS[r.nextInt(HOSTS.length)]);
    int k = 1 + r.nextInt(5);
    for (int i = 0; i < k; i++) {
      b.append('/').append(Long.toString(r.nextLong(1L << 30), 36));
    }
    return b.append(r.nextBoolean() ? ".jsp" : ".aspx").toString();
  }

  /** {@code n} media records (the shape of dataset/nested/media). */
  public static Dataset media(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    String[] formats = {"MP4", "MKV", "AVI", "MOV"};
    List<Map<String, Object>> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      List<Object> persons = new ArrayList<>();
      int pn = r.nextInt(4);
      for (int j = 0; j < pn; j++) {
        persons.add(NAMES[r.nextInt(NAMES.length)]);
      }
      LinkedHashMap<String, Object> media = map(
          "uri", url(r), "title", TITLES[r.nextInt(TITLES.length)], "format", formats[r.nextInt(formats.length)],
          "copyright", "Feedspan" + r.nextInt(50), "width", 320 * (1 + r.nextInt(12)), "height", 240 * (1 + r.nextInt(5)),
          "duration", r.nextInt(1, 10000), "size", r.nextInt(1, 1 << 20), "bitrate", r.nextInt(64, 10000),
          "player", r.nextBoolean() ? "JAVA" : "FLASH", "persons", persons);
      List<Object> images = new ArrayList<>();
      int in = r.nextInt(4);
      for (int j = 0; j < in; j++) {
        images.add(map("uri", url(r), "title", TITLES[r.nextInt(TITLES.length)],
            "size", r.nextBoolean() ? "SMALL" : "LARGE", "width", r.nextInt(16, 2000), "height", r.nextInt(16, 2000)));
      }
      rows.add(map("id", (long) i, "media", media, "images", images));
    }
    return new Dataset("media-" + n, mediaSchema(), rows);
  }
}
