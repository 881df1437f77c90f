package dev.serbench.runner.subjects;

import dev.serbench.runner.digest.Nav;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Reads Avro generic records (by field name, sanitized as in {@link AvroSchemas}). */
final class AvroNav implements Nav {
  static final AvroNav INSTANCE = new AvroNav();

  @Override
  public Object field(Object s, String name, int idx) {
    if (s instanceof IndexedRecord r) {
      org.apache.avro.Schema.Field f = r.getSchema().getField(AvroSchemas.sanitize(name));
      if (f == null) {
        throw new IllegalArgumentException("avro record " + r.getSchema().getName() + " has no field " + name);
      }
      return r.get(f.pos());
    }
    return Nav.super.field(s, name, idx);
  }

  @Override
  public Object leaf(Object v, ArrowType t) {
    if (v instanceof Utf8 u) {
      return java.util.Arrays.copyOf(u.getBytes(), u.getByteLength());
    }
    if (v instanceof GenericFixed g) {
      return g.bytes();
    }
    return v;
  }
}
