package dev.serbench.runner.arrow;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Reads Arrow data into the generic model of {@link Dataset}. */
public final class ArrowRows {
  private ArrowRows() {}

  /** Reads an Arrow IPC stream file. */
  public static Dataset read(String name, Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return read(name, in);
    }
  }

  /** Reads an Arrow IPC stream. */
  public static Dataset read(String name, InputStream in) throws IOException {
    BufferAllocator alloc = Arrow.allocator();
    try (BufferAllocator child = alloc.newChildAllocator("read-" + name, 0, Long.MAX_VALUE);
        ArrowStreamReader reader = new ArrowStreamReader(in, child)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      List<Map<String, Object>> rows = new ArrayList<>();
      Schema schema = null;
      while (reader.loadNextBatch()) {
        if (schema == null) {
          schema = logical(root.getSchema(), reader);
        }
        appendRows(root, reader, rows);
      }
      if (schema == null) {
        schema = logical(root.getSchema(), reader);
      }
      return new Dataset(name, schema, rows);
    }
  }

  /**
   * The schema of the decoded values: every dictionary-encoded field replaced by a plain field of
   * its dictionary's value type.
   */
  public static Schema logical(Schema s, DictionaryProvider dicts) {
    List<Field> fs = new ArrayList<>();
    for (Field f : s.getFields()) {
      fs.add(logical(f, dicts));
    }
    return new Schema(fs, s.getCustomMetadata());
  }

  static Field logical(Field f, DictionaryProvider dicts) {
    if (f.getDictionary() != null) {
      Dictionary d = dicts == null ? null : dicts.lookup(f.getDictionary().getId());
      if (d == null) {
        throw new IllegalArgumentException("dictionary " + f.getDictionary().getId() + " of " + f.getName() + " not found");
      }
      Field vf = logical(d.getVector().getField(), dicts);
      return new Field(f.getName(), new FieldType(f.isNullable(), vf.getType(), null, f.getMetadata()), vf.getChildren());
    }
    List<Field> cs = new ArrayList<>();
    for (Field c : f.getChildren()) {
      cs.add(logical(c, dicts));
    }
    return new Field(f.getName(), new FieldType(f.isNullable(), f.getType(), null, f.getMetadata()), cs);
  }

  /** Appends the rows of a batch. */
  public static void appendRows(
      VectorSchemaRoot root, DictionaryProvider dicts, List<Map<String, Object>> rows) {
    List<FieldVector> vectors = root.getFieldVectors();
    int nf = vectors.size();
    String[] names = new String[nf];
    Getter[] getters = new Getter[nf];
    for (int f = 0; f < nf; f++) {
      FieldVector v = vectors.get(f);
      names[f] = v.getField().getName();
      getters[f] = getter(v, v.getField(), dicts);
    }
    int n = root.getRowCount();
    for (int i = 0; i < n; i++) {
      LinkedHashMap<String, Object> row = new LinkedHashMap<>(mapCapacity(nf));
      for (int f = 0; f < nf; f++) {
        row.put(names[f], getters[f].get(i));
      }
      rows.add(row);
    }
  }

  /** The rows of batches as generic rows. */
  public static List<Map<String, Object>> rows(List<VectorSchemaRoot> roots, DictionaryProvider dicts) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (VectorSchemaRoot r : roots) {
      appendRows(r, dicts, rows);
    }
    return rows;
  }

  static int mapCapacity(int n) {
    return (int) (n / 0.75f) + 1;
  }

  /** Reads one element of a vector as a generic value. */
  public interface Getter {
    Object get(int i);
  }

  /** Builds the getter of a vector whose field is {@code field} (the schema's field). */
  public static Getter getter(ValueVector v, Field field, DictionaryProvider dicts) {
    if (field != null && field.getDictionary() != null) {
      if (dicts == null) {
        throw new IllegalArgumentException("dictionary field " + field.getName() + " without dictionaries");
      }
      Dictionary d = dicts.lookup(field.getDictionary().getId());
      if (d == null) {
        throw new IllegalArgumentException("dictionary " + field.getDictionary().getId() + " not found");
      }
      FieldVector dv = d.getVector();
      Getter dg = getter(dv, dv.getField(), dicts);
      Object[] values = new Object[dv.getValueCount()];
      for (int i = 0; i < values.length; i++) {
        values[i] = dg.get(i);
      }
      BaseIntVector idx = (BaseIntVector) v;
      return i -> idx.isNull(i) ? null : values[(int) idx.getValueAsLong(i)];
    }
    ArrowType t = v.getField().getType();
    switch (t.getTypeID()) {
      case Null:
        return i -> null;
      case Bool: {
        BitVector b = (BitVector) v;
        return i -> b.isNull(i) ? null : (b.get(i) != 0 ? Boolean.TRUE : Boolean.FALSE);
      }
      case Int: {
        ArrowType.Int it = (ArrowType.Int) t;
        BaseIntVector iv = (BaseIntVector) v;
        boolean asInt = it.getBitWidth() < 32 || (it.getBitWidth() == 32 && it.getIsSigned());
        if (asInt) {
          return i -> iv.isNull(i) ? null : (Object) (int) iv.getValueAsLong(i);
        }
        return i -> iv.isNull(i) ? null : (Object) iv.getValueAsLong(i);
      }
      case FloatingPoint: {
        if (v instanceof Float2Vector f2) {
          return i -> f2.isNull(i) ? null : (Object) f2.getValueAsFloat(i);
        }
        if (v instanceof Float4Vector f4) {
          return i -> f4.isNull(i) ? null : (Object) f4.get(i);
        }
        Float8Vector f8 = (Float8Vector) v;
        return i -> f8.isNull(i) ? null : (Object) f8.get(i);
      }
      case Utf8:
      case LargeUtf8:
      case Utf8View: {
        VariableWidthFieldVector s = (VariableWidthFieldVector) v;
        return i -> {
          byte[] b = s.get(i);
          return b == null ? null : new String(b, StandardCharsets.UTF_8);
        };
      }
      case Binary:
      case LargeBinary:
      case BinaryView: {
        VariableWidthFieldVector s = (VariableWidthFieldVector) v;
        return i -> s.get(i);
      }
      case FixedSizeBinary: {
        FixedSizeBinaryVector s = (FixedSizeBinaryVector) v;
        return i -> s.get(i);
      }
      case Timestamp: {
        TimeStampVector ts = (TimeStampVector) v;
        TimeUnit u = ((ArrowType.Timestamp) t).getUnit();
        return i -> ts.isNull(i) ? null : (Object) toMicros(ts.get(i), u);
      }
      case Date: {
        if (v instanceof DateDayVector dd) {
          return i -> dd.isNull(i) ? null : (Object) dd.get(i);
        }
        DateMilliVector dm = (DateMilliVector) v;
        return i -> dm.isNull(i) ? null : (Object) (int) Math.floorDiv(dm.get(i), 86_400_000L);
      }
      case Time: {
        if (v instanceof TimeSecVector s) {
          return i -> s.isNull(i) ? null : (Object) (s.get(i) * 1_000_000L);
        }
        if (v instanceof TimeMilliVector s) {
          return i -> s.isNull(i) ? null : (Object) (s.get(i) * 1_000L);
        }
        if (v instanceof TimeMicroVector s) {
          return i -> s.isNull(i) ? null : (Object) s.get(i);
        }
        TimeNanoVector s = (TimeNanoVector) v;
        return i -> s.isNull(i) ? null : (Object) Math.floorDiv(s.get(i), 1000L);
      }
      case Duration: {
        DurationVector d = (DurationVector) v;
        return i -> {
          if (d.isNull(i)) {
            return null;
          }
          Duration x = d.getObject(i);
          return Math.addExact(Math.multiplyExact(x.getSeconds(), 1_000_000L), x.getNano() / 1000);
        };
      }
      case Decimal: {
        if (v instanceof DecimalVector d) {
          return i -> d.isNull(i) ? null : d.getObject(i);
        }
        Decimal256Vector d = (Decimal256Vector) v;
        return i -> d.isNull(i) ? null : d.getObject(i);
      }
      case Struct: {
        StructVector s = (StructVector) v;
        List<Field> children = s.getField().getChildren();
        int nc = children.size();
        String[] names = new String[nc];
        Getter[] gs = new Getter[nc];
        for (int c = 0; c < nc; c++) {
          Field cf = children.get(c);
          names[c] = cf.getName();
          ValueVector cv = s.getChildByOrdinal(c);
          gs[c] = getter(cv, cf, dicts);
        }
        return i -> {
          if (s.isNull(i)) {
            return null;
          }
          LinkedHashMap<String, Object> m = new LinkedHashMap<>(mapCapacity(nc));
          for (int c = 0; c < nc; c++) {
            m.put(names[c], gs[c].get(i));
          }
          return m;
        };
      }
      case List:
      case Map: {
        ListVector l = (ListVector) v;
        FieldVector data = l.getDataVector();
        Getter eg = getter(data, childField(l.getField(), data), dicts);
        return i -> {
          if (l.isNull(i)) {
            return null;
          }
          int a = l.getElementStartIndex(i), b = l.getElementEndIndex(i);
          ArrayList<Object> out = new ArrayList<>(b - a);
          for (int j = a; j < b; j++) {
            out.add(eg.get(j));
          }
          return out;
        };
      }
      case LargeList: {
        LargeListVector l = (LargeListVector) v;
        FieldVector data = l.getDataVector();
        Getter eg = getter(data, childField(l.getField(), data), dicts);
        return i -> {
          if (l.isNull(i)) {
            return null;
          }
          int a = Math.toIntExact(l.getElementStartIndex(i));
          int b = Math.toIntExact(l.getElementEndIndex(i));
          ArrayList<Object> out = new ArrayList<>(b - a);
          for (int j = a; j < b; j++) {
            out.add(eg.get(j));
          }
          return out;
        };
      }
      case FixedSizeList: {
        FixedSizeListVector l = (FixedSizeListVector) v;
        FieldVector data = l.getDataVector();
        Getter eg = getter(data, childField(l.getField(), data), dicts);
        int size = l.getListSize();
        return i -> {
          if (l.isNull(i)) {
            return null;
          }
          ArrayList<Object> out = new ArrayList<>(size);
          for (int j = i * size; j < (i + 1) * size; j++) {
            out.add(eg.get(j));
          }
          return out;
        };
      }
      case ListView: {
        ListViewVector l = (ListViewVector) v;
        FieldVector data = l.getDataVector();
        Getter eg = getter(data, childField(l.getField(), data), dicts);
        return i -> {
          if (l.isNull(i)) {
            return null;
          }
          int a = l.getElementStartIndex(i), b = l.getElementEndIndex(i);
          ArrayList<Object> out = new ArrayList<>(b - a);
          for (int j = a; j < b; j++) {
            out.add(eg.get(j));
          }
          return out;
        };
      }
      default:
        throw new IllegalArgumentException(
            "column " + v.getField().getName() + ": unsupported Arrow type " + t);
    }
  }

  private static Field childField(Field parent, FieldVector data) {
    if (parent.getChildren().size() == 1) {
      return parent.getChildren().get(0);
    }
    return data.getField();
  }

  /** Converts a value in {@code u} to microseconds, flooring nanoseconds. */
  public static long toMicros(long v, TimeUnit u) {
    switch (u) {
      case SECOND:
        return Math.multiplyExact(v, 1_000_000L);
      case MILLISECOND:
        return Math.multiplyExact(v, 1_000L);
      case MICROSECOND:
        return v;
      default:
        return Math.floorDiv(v, 1000L);
    }
  }
}
