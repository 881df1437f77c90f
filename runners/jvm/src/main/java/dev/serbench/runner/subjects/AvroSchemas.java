package dev.serbench.runner.subjects;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * The Avro schema derived from an Arrow schema, and generic rows → Avro generic records.
 *
 * <p>Mapping: bool → boolean; int8/16/32, uint8/16 → int; int64, uint32, uint64 → long; float16/32
 * → float; float64 → double; string types → string; binary types → bytes; fixed_size_binary →
 * fixed; timestamp → long (timestamp-micros); time → long (time-micros); duration → long (µs);
 * date → int (date); decimal → bytes (decimal(P,S)); null → null; struct → record (named by its
 * path); list types → array; map → array of records {key, value}. A nullable field or element is
 * the union [null, T] (field default null). Field names that are not Avro names are replaced by
 * a sanitized name; values are placed by position, so the names do not matter.
 */
public final class AvroSchemas {
  private AvroSchemas() {}

  public static Schema fromArrow(org.apache.arrow.vector.types.pojo.Schema s) {
    Set<String> names = new HashSet<>();
    return record("Row", "", s.getFields(), names);
  }

  /**
   * {@code n} as an Avro name, as Go's format/dynamic and the Python runner make it (so the three
   * write the same names): every character but ASCII letters, digits and '_' becomes '_', a
   * leading digit is prefixed with '_'.
   */
  static String sanitize(String n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n.length(); i++) {
      char c = n.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
      if (i == 0 && c >= '0' && c <= '9') {
        b.append('_').append(c);
        continue;
      }
      b.append(ok ? c : '_');
    }
    if (b.length() == 0) {
      b.append('_');
    }
    return b.toString();
  }

  static Schema record(String name, String path, List<Field> fields, Set<String> names) {
    String rn = sanitize(name);
    while (!names.add(rn)) {
      rn = rn + "_";
    }
    List<Schema.Field> fs = new ArrayList<>();
    Set<String> fieldNames = new HashSet<>();
    for (Field f : fields) {
      String fp = path.isEmpty() ? f.getName() : path + "_" + f.getName();
      Schema t = type(f, fp, names);
      String fn = sanitize(f.getName());
      while (!fieldNames.add(fn)) {
        fn = fn + "_";
      }
      fs.add(f.isNullable()
          ? new Schema.Field(fn, Schema.createUnion(Schema.create(Schema.Type.NULL), t), null, JsonProperties.NULL_VALUE)
          : new Schema.Field(fn, t, null, (Object) null));
    }
    return Schema.createRecord(rn, null, "serbench", false, fs);
  }

  static Schema elem(Field f, String path, Set<String> names) {
    Schema t = type(f, path, names);
    return f.isNullable() && t.getType() != Schema.Type.NULL ? Schema.createUnion(Schema.create(Schema.Type.NULL), t) : t;
  }

  static Schema type(Field f, String path, Set<String> names) {
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Null:
        return Schema.create(Schema.Type.NULL);
      case Bool:
        return Schema.create(Schema.Type.BOOLEAN);
      case Int: {
        ArrowType.Int it = (ArrowType.Int) t;
        boolean asInt = it.getBitWidth() < 32 || (it.getBitWidth() == 32 && it.getIsSigned());
        return Schema.create(asInt ? Schema.Type.INT : Schema.Type.LONG);
      }
      case FloatingPoint:
        return Schema.create(((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.DOUBLE
            ? Schema.Type.DOUBLE : Schema.Type.FLOAT);
      case Utf8:
      case LargeUtf8:
      case Utf8View:
        return Schema.create(Schema.Type.STRING);
      case Binary:
      case LargeBinary:
      case BinaryView:
        return Schema.create(Schema.Type.BYTES);
      case FixedSizeBinary: {
        String n = sanitize("F_" + path);
        while (!names.add(n)) {
          n = n + "_";
        }
        return Schema.createFixed(n, null, "serbench", ((ArrowType.FixedSizeBinary) t).getByteWidth());
      }
      case Timestamp:
        return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case Time:
        return LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case Duration:
        return Schema.create(Schema.Type.LONG);
      case Date:
        return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case Decimal: {
        ArrowType.Decimal d = (ArrowType.Decimal) t;
        return LogicalTypes.decimal(d.getPrecision(), d.getScale()).addToSchema(Schema.create(Schema.Type.BYTES));
      }
      case Struct:
        return record("R_" + path, path, f.getChildren(), names);
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
      case Map:
        return Schema.createArray(elem(f.getChildren().get(0), path + "_item", names));
      default:
        throw new IllegalArgumentException("avro: column " + f.getName() + ": unsupported Arrow type " + t);
    }
  }

  /** A generic row as a record of {@code schema} (derived by {@link #fromArrow}). */
  public static GenericData.Record toRecord(Map<String, Object> row, List<Field> fields, Schema schema) {
    GenericData.Record r = new GenericData.Record(schema);
    List<Schema.Field> afs = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      r.put(i, toAvro(row.get(f.getName()), f, afs.get(i).schema()));
    }
    return r;
  }

  static Schema nonNull(Schema s) {
    if (s.getType() == Schema.Type.UNION) {
      for (Schema b : s.getTypes()) {
        if (b.getType() != Schema.Type.NULL) {
          return b;
        }
      }
    }
    return s;
  }

  @SuppressWarnings("unchecked")
  static Object toAvro(Object v, Field f, Schema s) {
    if (v == null) {
      return null;
    }
    s = nonNull(s);
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Binary:
      case LargeBinary:
      case BinaryView:
        return ByteBuffer.wrap((byte[]) v);
      case FixedSizeBinary:
        return new GenericData.Fixed(s, (byte[]) v);
      case Decimal:
        return ByteBuffer.wrap(((BigDecimal) v).setScale(((ArrowType.Decimal) t).getScale(), RoundingMode.UNNECESSARY)
            .unscaledValue().toByteArray());
      case Struct:
        return toRecord((Map<String, Object>) v, f.getChildren(), s);
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
      case Map: {
        List<?> xs = (List<?>) v;
        Field cf = f.getChildren().get(0);
        Schema es = s.getElementType();
        GenericData.Array<Object> a = new GenericData.Array<>(xs.size(), s);
        for (Object x : xs) {
          a.add(toAvro(x, cf, es));
        }
        return a;
      }
      case Int: {
        ArrowType.Int it = (ArrowType.Int) t;
        boolean asInt = it.getBitWidth() < 32 || (it.getBitWidth() == 32 && it.getIsSigned());
        return asInt ? (Object) ((Number) v).intValue() : (Object) ((Number) v).longValue();
      }
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.DOUBLE
            ? (Object) ((Number) v).doubleValue() : (Object) ((Number) v).floatValue();
      case Date:
        return ((Number) v).intValue();
      case Timestamp:
      case Time:
      case Duration:
        return ((Number) v).longValue();
      default:
        return v;
    }
  }
}
