package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.ArrowRows;
import dev.serbench.runner.digest.Nav;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The values of the row formats' files (protocol §10, export and import), driven by the
 * dataset's schema. The generic model holds timestamps as Long microseconds and dates as Integer
 * days; a file carries them as the format's convention says, the same in every language:
 *
 * <ul>
 *   <li>{@link Style#JSON} (JSON Lines): timestamps as RFC 3339 UTC text ({@code
 *       Instant.toString()}), dates as {@code YYYY-MM-DD}, decimals as plain decimal text, binary
 *       as base64 text (Jackson's own for {@code byte[]}).
 *   <li>{@link Style#BINARY} (MessagePack): timestamps as integers in the column's unit (µs
 *       columns: microseconds), dates as integer days, decimals as plain text, binary as bytes.
 * </ul>
 *
 * <p>{@link #NAV} reads any of these (and what other languages write: RFC 3339 text with an
 * offset, {@code Instant}/{@code LocalDate} objects, MessagePack timestamp extensions) back
 * through the schema: a timestamp column's integer is taken in the column's unit.
 */
public final class FileValues {
  private FileValues() {}

  /** How a file carries what its format has no type for. */
  public enum Style {
    JSON,
    BINARY
  }

  /** A generic row as the file writes it. */
  public static Map<String, Object> row(Map<String, Object> row, List<Field> fields, Style style) {
    LinkedHashMap<String, Object> out = new LinkedHashMap<>((int) (fields.size() / 0.75f) + 1);
    for (Field f : fields) {
      out.put(f.getName(), value(row.get(f.getName()), f, style));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static Object value(Object v, Field f, Style style) {
    if (v == null) {
      return null;
    }
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Timestamp: {
        long us = ((Number) v).longValue();
        if (style == Style.JSON) {
          return Instant.EPOCH.plusSeconds(Math.floorDiv(us, 1_000_000L))
              .plusNanos(Math.floorMod(us, 1_000_000L) * 1000L).toString();
        }
        return fromMicros(us, ((ArrowType.Timestamp) t).getUnit());
      }
      case Date:
        return style == Style.JSON ? LocalDate.ofEpochDay(((Number) v).longValue()).toString() : v;
      case Decimal:
        return ((BigDecimal) v).toPlainString();
      case Struct:
        return row((Map<String, Object>) v, f.getChildren(), style);
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
      case Map: {
        List<?> xs = (List<?>) v;
        Field cf = f.getChildren().get(0);
        List<Object> out = new ArrayList<>(xs.size());
        for (Object x : xs) {
          out.add(value(x, cf, style));
        }
        return out;
      }
      default:
        return v;
    }
  }

  static long fromMicros(long us, TimeUnit u) {
    switch (u) {
      case SECOND:
        return Math.floorDiv(us, 1_000_000L);
      case MILLISECOND:
        return Math.floorDiv(us, 1_000L);
      case MICROSECOND:
        return us;
      default:
        return Math.multiplyExact(us, 1000L);
    }
  }

  /** Reads imported values through the schema (see the class comment). */
  public static final Nav NAV = nav(false);

  /** {@link #NAV}, and base64 text in a binary column decoded (JSON). */
  public static final Nav JSON_NAV = nav(true);

  private static Nav nav(boolean base64) {
    return new Nav() {
      @Override
      public Object field(Object s, String name, int idx) {
        return AvroNav.INSTANCE.field(s, name, idx);
      }

      @Override
      public Object leaf(Object v, ArrowType t) {
        v = AvroNav.INSTANCE.leaf(v, t);
        switch (t.getTypeID()) {
          case Timestamp:
            if (v instanceof CharSequence s) {
              return OffsetDateTime.parse(s).toInstant();
            }
            if (v instanceof Number n && !(v instanceof BigDecimal)) {
              return ArrowRows.toMicros(n.longValue(), ((ArrowType.Timestamp) t).getUnit());
            }
            return v;
          case Date:
            if (v instanceof CharSequence s) {
              return LocalDate.parse(s);
            }
            return v;
          case Binary:
          case LargeBinary:
          case BinaryView:
          case FixedSizeBinary:
            if (base64 && v instanceof String s) {
              return Base64.getDecoder().decode(s);
            }
            return v;
          default:
            return v;
        }
      }
    };
  }
}
