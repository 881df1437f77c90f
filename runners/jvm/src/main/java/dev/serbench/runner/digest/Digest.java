package dev.serbench.runner.digest;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The digest, version 1 (docs/runner-protocol.md §7): per leaf column, SHA-256 (first 16 bytes) of
 * a stream holding the null-ness of every ancestor, every list length on the path and the
 * canonical leaf values; the table digest over the columns sorted by path.
 */
public final class Digest {
  public static final int VERSION = 1;

  private Digest() {}

  /** One step of a leaf's path from the row: a struct field or a list's elements. */
  record Step(String name, int index, boolean list) {}

  /** A leaf column: its path, its steps from the row and its Arrow type. */
  public record Leaf(String path, Step[] steps, ArrowType type) {}

  /** A column digest. */
  public record Column(String path, String digest) {}

  /** The digest of a table: rows, table digest and the column digests in schema order. */
  public record Result(long rows, String table, List<Column> columns) {
    public String column(String path) {
      for (Column c : columns) {
        if (c.path().equals(path)) {
          return c.digest();
        }
      }
      return null;
    }
  }

  /** The leaf columns of a schema in schema order (§7.1). */
  public static List<Leaf> leaves(Schema s) {
    List<Leaf> out = new ArrayList<>();
    List<Field> fs = s.getFields();
    for (int i = 0; i < fs.size(); i++) {
      Field f = fs.get(i);
      walk(f, f.getName(), i, new ArrayList<>(), out);
    }
    Set<String> seen = new HashSet<>();
    for (Leaf l : out) {
      if (!seen.add(l.path())) {
        throw new IllegalArgumentException("digest: two leaves with path " + l.path());
      }
    }
    return out;
  }

  private static void walk(Field f, String path, int index, List<Step> steps, List<Leaf> out) {
    steps.add(new Step(f.getName(), index, false));
    walkType(f, path, steps, out);
    steps.remove(steps.size() - 1);
  }

  private static void walkType(Field f, String path, List<Step> steps, List<Leaf> out) {
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Struct: {
        List<Field> cs = f.getChildren();
        for (int i = 0; i < cs.size(); i++) {
          Field c = cs.get(i);
          walk(c, path + "." + c.getName(), i, steps, out);
        }
        return;
      }
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
      case Map: {
        Field c = f.getChildren().get(0);
        steps.add(new Step(null, 0, true));
        walkType(c, path + ".[]", steps, out);
        steps.remove(steps.size() - 1);
        return;
      }
      case Union:
      case Interval:
      case RunEndEncoded:
      case NONE:
        throw new IllegalArgumentException("digest: column " + path + ": type " + t + " has no digest in version 1");
      case Decimal: {
        int bw = ((ArrowType.Decimal) t).getBitWidth();
        if (bw != 128 && bw != 256) {
          throw new IllegalArgumentException("digest: column " + path + ": type " + t + " has no digest in version 1");
        }
        break;
      }
      default:
        break;
    }
    out.add(new Leaf(path, steps.toArray(new Step[0]), t));
  }

  /**
   * The digest of {@code rows} (each a struct value read through {@code nav}), over the leaves of
   * {@code schema} selected by {@code select} (null: all).
   */
  public static Result digest(Schema schema, Collection<?> rows, Nav nav, Set<String> select) {
    List<Leaf> all = leaves(schema);
    List<Leaf> leaves = new ArrayList<>();
    for (Leaf l : all) {
      if (select == null || select.contains(l.path())) {
        leaves.add(l);
      }
    }
    List<Column> cols = new ArrayList<>();
    for (Leaf l : leaves) {
      Stream st = new Stream();
      for (Object row : rows) {
        Step first = l.steps()[0];
        enc(st, nav.field(row, first.name(), first.index()), l, 1, nav);
      }
      cols.add(new Column(l.path(), HexFormat.of().formatHex(st.sum())));
    }
    return new Result(rows.size(), table(cols), cols);
  }

  /** The table digest of columns (§7.4). */
  public static String table(List<Column> cols) {
    List<Column> sorted = new ArrayList<>(cols);
    sorted.sort((a, b) -> Arrays.compareUnsigned(
        a.path().getBytes(StandardCharsets.UTF_8), b.path().getBytes(StandardCharsets.UTF_8)));
    Stream st = new Stream();
    for (Column c : sorted) {
      byte[] p = c.path().getBytes(StandardCharsets.UTF_8);
      st.i64(p.length);
      st.bytes(p);
      st.bytes(HexFormat.of().parseHex(c.digest()));
    }
    return HexFormat.of().formatHex(st.sum());
  }

  private static void enc(Stream st, Object v, Leaf l, int k, Nav nav) {
    Step[] steps = l.steps();
    if (v == null) {
      st.b(0);
      return;
    }
    if (k == steps.length) {
      if (l.type().getTypeID() == ArrowType.ArrowTypeID.Null) {
        st.b(0);
        return;
      }
      st.b(1);
      leaf(st, nav.leaf(v, l.type()), l);
      return;
    }
    st.b(1);
    Step s = steps[k];
    if (s.list()) {
      List<?> xs = nav.list(v);
      int n = xs.size();
      st.i64(n);
      for (int j = 0; j < n; j++) {
        enc(st, xs.get(j), l, k + 1, nav);
      }
    } else {
      enc(st, nav.field(v, s.name(), s.index()), l, k + 1, nav);
    }
  }

  private static void leaf(Stream st, Object v, Leaf l) {
    ArrowType t = l.type();
    try {
      switch (t.getTypeID()) {
        case Bool:
          st.b(v instanceof Boolean b ? (b ? 1 : 0) : (((Number) v).longValue() != 0 ? 1 : 0));
          return;
        case Int:
          st.i64(integer(v));
          return;
        case FloatingPoint: {
          double d = ((Number) v).doubleValue();
          if (((ArrowType.FloatingPoint) t).getPrecision() != FloatingPointPrecision.DOUBLE && !(v instanceof Float)) {
            // a schema-bound decoder of a float32 column yields a float
            d = (float) d;
          }
          st.i64(Double.isNaN(d) ? 0x7ff8000000000000L : Double.doubleToRawLongBits(d));
          return;
        }
        case Utf8:
        case LargeUtf8:
        case Utf8View:
        case Binary:
        case LargeBinary:
        case BinaryView:
        case FixedSizeBinary: {
          byte[] b = bytes(v);
          st.i64(b.length);
          st.bytes(b);
          return;
        }
        case Timestamp:
        case Time:
        case Duration:
          st.i64(micros(v));
          return;
        case Date:
          st.i64(days(v));
          return;
        case Decimal: {
          byte[] b = decimal(v, ((ArrowType.Decimal) t).getScale()).getBytes(StandardCharsets.UTF_8);
          st.i64(b.length);
          st.bytes(b);
          return;
        }
        default:
          throw new IllegalArgumentException("type " + t + " has no digest in version 1");
      }
    } catch (ClassCastException e) {
      throw new IllegalArgumentException(
          "digest: column " + l.path() + " (" + t + "): unexpected value of " + v.getClass().getName(), e);
    }
  }

  static long integer(Object v) {
    if (v instanceof Number n) {
      return n.longValue(); // BigInteger: the low 64 bits, the uint64 bit pattern
    }
    if (v instanceof Character c) {
      return c;
    }
    throw new ClassCastException();
  }

  static byte[] bytes(Object v) {
    if (v instanceof byte[] b) {
      return b;
    }
    if (v instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (v instanceof ByteBuffer bb) {
      ByteBuffer d = bb.duplicate();
      byte[] b = new byte[d.remaining()];
      d.get(b);
      return b;
    }
    if (v instanceof CharSequence cs) {
      return cs.toString().getBytes(StandardCharsets.UTF_8);
    }
    throw new ClassCastException();
  }

  static long micros(Object v) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v instanceof Instant i) {
      return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
    }
    if (v instanceof LocalDateTime t) {
      return micros(t.toInstant(ZoneOffset.UTC));
    }
    if (v instanceof java.util.Date d) {
      return Math.multiplyExact(d.getTime(), 1000L);
    }
    if (v instanceof java.time.Duration d) {
      return Math.addExact(Math.multiplyExact(d.getSeconds(), 1_000_000L), d.getNano() / 1000);
    }
    if (v instanceof LocalTime t) {
      return t.toNanoOfDay() / 1000;
    }
    throw new ClassCastException();
  }

  static long days(Object v) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v instanceof LocalDate d) {
      return d.toEpochDay();
    }
    if (v instanceof java.util.Date d) {
      return Math.floorDiv(d.getTime(), 86_400_000L);
    }
    throw new ClassCastException();
  }

  /** The plain decimal string of §7.3 at {@code scale}. */
  public static String decimal(Object v, int scale) {
    BigDecimal d;
    if (v instanceof BigDecimal b) {
      d = b;
    } else if (v instanceof BigInteger b) {
      d = new BigDecimal(b, scale);
    } else if (v instanceof byte[] || v instanceof ByteBuffer) {
      d = new BigDecimal(new BigInteger(bytes(v)), scale);
    } else if (v instanceof Double || v instanceof Float) {
      d = new BigDecimal(v.toString());
    } else if (v instanceof Number n) {
      d = BigDecimal.valueOf(n.longValue());
    } else if (v instanceof CharSequence s) {
      d = new BigDecimal(s.toString());
    } else {
      throw new ClassCastException();
    }
    try {
      d = d.setScale(scale, RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      // not representable at the column's scale: digest what there is (it will differ)
    }
    return d.toPlainString();
  }

  /** A column's byte stream, hashed as it is written. */
  static final class Stream {
    private final MessageDigest md;
    private final byte[] buf = new byte[8192];
    private int n;

    Stream() {
      try {
        md = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    void b(int x) {
      if (n == buf.length) {
        flush();
      }
      buf[n++] = (byte) x;
    }

    void i64(long x) {
      if (n + 8 > buf.length) {
        flush();
      }
      for (int i = 0; i < 8; i++) {
        buf[n++] = (byte) (x >>> (8 * i));
      }
    }

    void bytes(byte[] b) {
      if (b.length > buf.length - n) {
        flush();
        md.update(b);
        return;
      }
      System.arraycopy(b, 0, buf, n, b.length);
      n += b.length;
    }

    void flush() {
      md.update(buf, 0, n);
      n = 0;
    }

    byte[] sum() {
      flush();
      return Arrays.copyOf(md.digest(), 16);
    }
  }
}
