package dev.serbench.runner.subjects;

import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.kit.GenericSubject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

/**
 * msgpack-java (msgpack-core): the rows as one array of maps with string keys, written and read
 * value by value with MessagePacker/MessageUnpacker into {@code ArrayList}/{@code LinkedHashMap}.
 * Integers that fit are read as Long, uint64 beyond 2^63 as the Long bit pattern; float32 stays
 * float32; decimals are written as their plain string (msgpack has no decimal type).
 */
public final class MsgpackSubject extends GenericSubject {
  public MsgpackSubject() {
    super("msgpack-java", "msgpack", "org.msgpack:msgpack-core",
        labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
            "model", "java.util.Map/List (hand-written tree walk)"));
  }

  @Override
  public byte[] encode(List<Map<String, Object>> rows) throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    pack(p, rows);
    p.close();
    return p.toByteArray();
  }

  @Override
  protected Nav fileNav() {
    return FileValues.NAV;
  }

  @Override
  protected boolean files() {
    return true;
  }

  /**
   * Export: the rows as MessagePack maps back to back ({@link FileValues.Style#BINARY}: timestamps
   * as integers in the column's unit, dates as integer days, decimals as text).
   */
  @Override
  protected void writeFile(List<Map<String, Object>> rows, List<org.apache.arrow.vector.types.pojo.Field> fields,
      java.nio.file.Path path) throws Exception {
    try (org.msgpack.core.MessagePacker p = MessagePack.newDefaultPacker(
        new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(path), 1 << 16))) {
      for (Map<String, Object> r : rows) {
        pack(p, FileValues.row(r, fields, FileValues.Style.BINARY));
      }
    }
  }

  /** Import: every map of the file, one after another; timestamp extensions (-1) as Instant. */
  @Override
  protected List<?> readFile(java.nio.file.Path path) throws Exception {
    List<Object> out = new ArrayList<>();
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(
        new java.io.BufferedInputStream(java.nio.file.Files.newInputStream(path), 1 << 16))) {
      while (u.hasNext()) {
        out.add(unpack(u));
      }
    }
    return out;
  }

  static void pack(org.msgpack.core.MessagePacker p, Object v) throws Exception {
    if (v == null) {
      p.packNil();
    } else if (v instanceof String s) {
      p.packString(s);
    } else if (v instanceof Long l) {
      p.packLong(l);
    } else if (v instanceof Integer i) {
      p.packInt(i);
    } else if (v instanceof Double d) {
      p.packDouble(d);
    } else if (v instanceof Float f) {
      p.packFloat(f);
    } else if (v instanceof Boolean b) {
      p.packBoolean(b);
    } else if (v instanceof Map<?, ?> m) {
      p.packMapHeader(m.size());
      for (Map.Entry<?, ?> e : m.entrySet()) {
        p.packString((String) e.getKey());
        pack(p, e.getValue());
      }
    } else if (v instanceof List<?> xs) {
      p.packArrayHeader(xs.size());
      for (Object x : xs) {
        pack(p, x);
      }
    } else if (v instanceof byte[] b) {
      p.packBinaryHeader(b.length);
      p.writePayload(b);
    } else if (v instanceof BigDecimal d) {
      p.packString(d.toPlainString());
    } else if (v instanceof BigInteger b) {
      p.packBigInteger(b);
    } else {
      throw new IllegalArgumentException("msgpack: cannot write " + v.getClass().getName());
    }
  }

  @Override
  public List<?> decode(byte[] bytes) throws Exception {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(bytes)) {
      return (List<?>) unpack(u);
    }
  }

  static Object unpack(MessageUnpacker u) throws Exception {
    MessageFormat f = u.getNextFormat();
    switch (f.getValueType()) {
      case NIL:
        u.unpackNil();
        return null;
      case BOOLEAN:
        return u.unpackBoolean();
      case INTEGER:
        if (f == MessageFormat.UINT64) {
          return u.unpackBigInteger().longValue();
        }
        return u.unpackLong();
      case FLOAT:
        if (f == MessageFormat.FLOAT32) {
          return u.unpackFloat();
        }
        return u.unpackDouble();
      case STRING:
        return u.unpackString();
      case BINARY: {
        int n = u.unpackBinaryHeader();
        return u.readPayload(n);
      }
      case ARRAY: {
        int n = u.unpackArrayHeader();
        ArrayList<Object> xs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          xs.add(unpack(u));
        }
        return xs;
      }
      case MAP: {
        int n = u.unpackMapHeader();
        LinkedHashMap<String, Object> m = new LinkedHashMap<>((int) (n / 0.75f) + 1);
        for (int i = 0; i < n; i++) {
          String k = u.unpackString();
          m.put(k, unpack(u));
        }
        return m;
      }
      case EXTENSION: {
        org.msgpack.core.ExtensionTypeHeader h = u.unpackExtensionTypeHeader();
        if (h.isTimestampType()) {
          return u.unpackTimestamp(h);
        }
        throw new IllegalArgumentException("msgpack: extension type " + h.getType() + " has no meaning here");
      }
      default:
        throw new IllegalArgumentException("msgpack: unexpected " + f);
    }
  }
}
