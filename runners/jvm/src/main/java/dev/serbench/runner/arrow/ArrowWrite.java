package dev.serbench.runner.arrow;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes generic rows (the model of {@link Dataset}) into Arrow vectors. Dictionary-encoded fields
 * are written as plain columns of their value type ({@link #plain}).
 */
public final class ArrowWrite {
  private ArrowWrite() {}

  /** The schema without dictionary encodings (each field keeps its value type). */
  public static Schema plain(Schema s) {
    List<Field> fs = new ArrayList<>();
    for (Field f : s.getFields()) {
      fs.add(plain(f));
    }
    return new Schema(fs, s.getCustomMetadata());
  }

  public static Field plain(Field f) {
    List<Field> cs = new ArrayList<>();
    for (Field c : f.getChildren()) {
      cs.add(plain(c));
    }
    FieldType ft = f.getFieldType();
    return new Field(f.getName(), new FieldType(ft.isNullable(), ft.getType(), null, ft.getMetadata()), cs);
  }

  /** Builds a root of {@code plain(schema)} holding {@code rows}; the caller closes it. */
  public static VectorSchemaRoot write(Schema schema, List<? extends Map<String, Object>> rows, BufferAllocator alloc) {
    VectorSchemaRoot root = VectorSchemaRoot.create(plain(schema), alloc);
    try {
      root.allocateNew();
      List<FieldVector> vs = root.getFieldVectors();
      Put[] puts = new Put[vs.size()];
      String[] names = new String[vs.size()];
      for (int f = 0; f < vs.size(); f++) {
        puts[f] = put(vs.get(f));
        names[f] = vs.get(f).getField().getName();
      }
      int n = rows.size();
      for (int i = 0; i < n; i++) {
        Map<String, Object> row = rows.get(i);
        for (int f = 0; f < puts.length; f++) {
          puts[f].put(i, row.get(names[f]));
        }
      }
      root.setRowCount(n);
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /** Sets element {@code i} of a vector from a generic value. */
  public interface Put {
    void put(int i, Object v);
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

  public static Put put(ValueVector v) {
    ArrowType t = v.getField().getType();
    switch (t.getTypeID()) {
      case Null: {
        NullVector nv = (NullVector) v;
        return (i, x) -> {
          if (nv.getValueCount() <= i) {
            nv.setValueCount(i + 1);
          }
        };
      }
      case Bool: {
        BitVector b = (BitVector) v;
        return (i, x) -> {
          if (x == null) {
            b.setNull(i);
          } else {
            b.setSafe(i, ((Boolean) x) ? 1 : 0);
          }
        };
      }
      case Int: {
        BaseIntVector iv = (BaseIntVector) v;
        return (i, x) -> {
          if (x == null) {
            ((BaseFixedWidthVector) v).setNull(i);
          } else {
            iv.setWithPossibleTruncate(i, ((Number) x).longValue());
          }
        };
      }
      case FloatingPoint: {
        FloatingPointVector fv = (FloatingPointVector) v;
        return (i, x) -> {
          if (x == null) {
            ((BaseFixedWidthVector) v).setNull(i);
          } else {
            fv.setSafeWithPossibleTruncate(i, ((Number) x).doubleValue());
          }
        };
      }
      case Utf8:
      case LargeUtf8:
      case Utf8View:
      case Binary:
      case LargeBinary:
      case BinaryView: {
        VariableWidthFieldVector s = (VariableWidthFieldVector) v;
        return (i, x) -> {
          if (x == null) {
            s.setNull(i);
          } else {
            s.setSafe(i, x instanceof String str ? str.getBytes(StandardCharsets.UTF_8) : (byte[]) x);
          }
        };
      }
      case FixedSizeBinary: {
        FixedSizeBinaryVector s = (FixedSizeBinaryVector) v;
        return (i, x) -> {
          if (x == null) {
            s.setNull(i);
          } else {
            s.setSafe(i, (byte[]) x);
          }
        };
      }
      case Timestamp: {
        TimeStampVector ts = (TimeStampVector) v;
        TimeUnit u = ((ArrowType.Timestamp) t).getUnit();
        return (i, x) -> {
          if (x == null) {
            ts.setNull(i);
          } else {
            ts.setSafe(i, fromMicros(((Number) x).longValue(), u));
          }
        };
      }
      case Date: {
        if (v instanceof DateDayVector dd) {
          return (i, x) -> {
            if (x == null) {
              dd.setNull(i);
            } else {
              dd.setSafe(i, ((Number) x).intValue());
            }
          };
        }
        DateMilliVector dm = (DateMilliVector) v;
        return (i, x) -> {
          if (x == null) {
            dm.setNull(i);
          } else {
            dm.setSafe(i, ((Number) x).longValue() * 86_400_000L);
          }
        };
      }
      case Time: {
        return (i, x) -> {
          if (x == null) {
            ((BaseFixedWidthVector) v).setNull(i);
            return;
          }
          long us = ((Number) x).longValue();
          if (v instanceof TimeSecVector s) {
            s.setSafe(i, (int) Math.floorDiv(us, 1_000_000L));
          } else if (v instanceof TimeMilliVector s) {
            s.setSafe(i, (int) Math.floorDiv(us, 1_000L));
          } else if (v instanceof TimeMicroVector s) {
            s.setSafe(i, us);
          } else {
            ((TimeNanoVector) v).setSafe(i, us * 1000L);
          }
        };
      }
      case Duration: {
        DurationVector d = (DurationVector) v;
        TimeUnit u = ((ArrowType.Duration) t).getUnit();
        return (i, x) -> {
          if (x == null) {
            d.setNull(i);
          } else {
            d.setSafe(i, fromMicros(((Number) x).longValue(), u));
          }
        };
      }
      case Decimal: {
        int scale = ((ArrowType.Decimal) t).getScale();
        return (i, x) -> {
          if (x == null) {
            ((BaseFixedWidthVector) v).setNull(i);
            return;
          }
          BigDecimal d = ((BigDecimal) x).setScale(scale, RoundingMode.UNNECESSARY);
          if (v instanceof DecimalVector dv) {
            dv.setSafe(i, d);
          } else {
            ((Decimal256Vector) v).setSafe(i, d);
          }
        };
      }
      case Struct: {
        StructVector s = (StructVector) v;
        List<Field> children = s.getField().getChildren();
        int nc = children.size();
        String[] names = new String[nc];
        Put[] ps = new Put[nc];
        for (int c = 0; c < nc; c++) {
          names[c] = children.get(c).getName();
          ps[c] = put(s.getChildByOrdinal(c));
        }
        return (i, x) -> {
          if (x == null) {
            s.setNull(i);
            for (int c = 0; c < nc; c++) {
              ps[c].put(i, null);
            }
            return;
          }
          @SuppressWarnings("unchecked")
          Map<String, Object> m = (Map<String, Object>) x;
          s.setIndexDefined(i);
          for (int c = 0; c < nc; c++) {
            ps[c].put(i, m.get(names[c]));
          }
        };
      }
      case List:
      case Map: {
        ListVector l = (ListVector) v;
        Put ep = put(l.getDataVector());
        return (i, x) -> {
          if (x == null) {
            l.setNull(i);
            return;
          }
          List<?> xs = (List<?>) x;
          int off = l.startNewValue(i);
          for (int j = 0; j < xs.size(); j++) {
            ep.put(off + j, xs.get(j));
          }
          l.endValue(i, xs.size());
        };
      }
      case LargeList: {
        LargeListVector l = (LargeListVector) v;
        Put ep = put(l.getDataVector());
        return (i, x) -> {
          if (x == null) {
            l.setNull(i);
            return;
          }
          List<?> xs = (List<?>) x;
          long off = l.startNewValue(i);
          for (int j = 0; j < xs.size(); j++) {
            ep.put(Math.toIntExact(off + j), xs.get(j));
          }
          l.endValue(i, xs.size());
        };
      }
      case FixedSizeList: {
        FixedSizeListVector l = (FixedSizeListVector) v;
        Put ep = put(l.getDataVector());
        int size = l.getListSize();
        return (i, x) -> {
          if (x == null) {
            l.setNull(i);
            for (int j = 0; j < size; j++) {
              ep.put(i * size + j, null);
            }
            return;
          }
          List<?> xs = (List<?>) x;
          if (xs.size() != size) {
            throw new IllegalArgumentException("fixed_size_list of " + size + " given " + xs.size() + " elements");
          }
          l.setNotNull(i);
          for (int j = 0; j < size; j++) {
            ep.put(i * size + j, xs.get(j));
          }
        };
      }
      default:
        throw new IllegalArgumentException(
            "column " + v.getField().getName() + ": cannot write Arrow type " + t);
    }
  }
}
