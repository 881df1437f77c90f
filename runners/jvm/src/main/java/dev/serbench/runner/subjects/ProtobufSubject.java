package dev.serbench.runner.subjects;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.kit.Kit;
import dev.serbench.runner.kit.Projection;
import dev.serbench.runner.kit.Subject;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * protobuf-java with the classes protoc generated at build time from the nested workload's
 * .proto files (dataset/nested/{tpch,media,userevents}/pb). A dataset is bound to the generated
 * message whose fields match its Arrow schema by name and kind; other datasets fail at setup.
 * Records are written length-delimited (varint length, then the message), as the .proto files
 * say. Rows become messages through the descriptors (outside timing); encode and decode use the
 * generated code. Strings of an enum field map to the enum value whose name is the string upper
 * cased with non-alphanumerics as '_' ("Profile update" → PROFILE_UPDATE); the digest maps the
 * values back to the strings seen in the dataset.
 *
 * <p>The file of export and import (protocol §10.3, {@code .binpb}) is the same bytes as encode's:
 * every row's message preceded by its size as an unsigned varint ({@code writeDelimitedTo} /
 * {@code parseDelimitedFrom} framing), no header, no trailer; enum fields hold the enum number.
 * import reads it with decode's parser; the enum strings of the digest come from the bound dataset
 * (walked outside the timed read).
 */
public final class ProtobufSubject implements Subject {
  /** The generated top-level messages, tried in this order. */
  static List<Message> candidates() {
    return List.of(
        serbench.nested.tpch.Tpch.LineItem.getDefaultInstance(),
        serbench.nested.media.MediaOuterClass.Record.getDefaultInstance(),
        serbench.nested.userevents.Userevents.Record.getDefaultInstance());
  }

  @Override
  public String name() {
    return "protobuf-java";
  }

  @Override
  public boolean anySchema() {
    return false;
  }

  @Override
  public String format() {
    return "protobuf";
  }

  @Override
  public String library() {
    return "com.google.protobuf:protobuf-java";
  }

  @Override
  public List<String> ops() {
    return List.of("encode", "decode", "query", FILE_OPS.get(0), FILE_OPS.get(1));
  }

  @Override
  public Map<String, String> labels() {
    return Kit.labels("codegen", "yes", "reuse", "no", "zero_copy", "no", "time_precision", "us",
        "model", "generated message classes (protoc " + dev.serbench.runner.Versions.of("com.google.protobuf:protobuf-java") + ")",
        "framing", "length-delimited records", "schemas", "tpch LineItem, media Record, userevents Record");
  }

  /** Why {@code fields} do not match message {@code d}, or null when they do. */
  static String mismatch(List<Field> fields, Descriptor d, String path) {
    if (fields.size() != d.getFields().size()) {
      return path + d.getName() + " has " + d.getFields().size() + " fields, the dataset " + fields.size();
    }
    for (Field f : fields) {
      FieldDescriptor fd = d.findFieldByName(f.getName());
      if (fd == null) {
        return path + d.getName() + " has no field " + f.getName();
      }
      Field vf = f;
      if (fd.isRepeated()) {
        switch (f.getType().getTypeID()) {
          case List:
          case LargeList:
          case FixedSizeList:
            vf = f.getChildren().get(0);
            break;
          default:
            return path + f.getName() + " is repeated, the dataset's column is " + f.getType();
        }
      }
      String why = kind(vf, fd, path + f.getName() + ".");
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  static String kind(Field f, FieldDescriptor fd, String path) {
    ArrowType t = f.getType();
    switch (fd.getJavaType()) {
      case MESSAGE:
        return t.getTypeID() == ArrowType.ArrowTypeID.Struct ? mismatch(f.getChildren(), fd.getMessageType(), path)
            : path + " is a message, the dataset's column is " + t;
      case INT:
      case LONG:
        return t.getTypeID() == ArrowType.ArrowTypeID.Int ? null : path + " is an integer, the column " + t;
      case DOUBLE:
      case FLOAT:
        return t.getTypeID() == ArrowType.ArrowTypeID.FloatingPoint ? null : path + " is a float, the column " + t;
      case BOOLEAN:
        return t.getTypeID() == ArrowType.ArrowTypeID.Bool ? null : path + " is a bool, the column " + t;
      case STRING:
      case ENUM:
        return t.getTypeID() == ArrowType.ArrowTypeID.Utf8 || t.getTypeID() == ArrowType.ArrowTypeID.LargeUtf8
            ? null : path + " is a string, the column " + t;
      case BYTE_STRING:
        return t.getTypeID() == ArrowType.ArrowTypeID.Binary ? null : path + " is bytes, the column " + t;
      default:
        return path + ": unsupported";
    }
  }

  static String enumKey(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = Character.toUpperCase(s.charAt(i));
      b.append((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
    }
    return b.toString();
  }

  /** Rows → messages, with the enum strings seen. */
  static final class Converter {
    final Map<EnumValueDescriptor, String> names = new HashMap<>();
    final Map<EnumDescriptor, Map<String, EnumValueDescriptor>> values = new HashMap<>();

    EnumValueDescriptor enumValue(EnumDescriptor ed, String s, String path) {
      Map<String, EnumValueDescriptor> byKey = values.computeIfAbsent(ed, e -> {
        Map<String, EnumValueDescriptor> m = new HashMap<>();
        for (EnumValueDescriptor v : e.getValues()) {
          m.put(v.getName(), v);
        }
        return m;
      });
      EnumValueDescriptor v = byKey.get(enumKey(s));
      if (v == null) {
        throw new IllegalArgumentException("protobuf: " + path + ": \"" + s + "\" is no value of enum " + ed.getName());
      }
      String prev = names.putIfAbsent(v, s);
      if (prev != null && !prev.equals(s)) {
        throw new IllegalArgumentException("protobuf: " + path + ": \"" + s + "\" and \"" + prev + "\" are both " + v.getName());
      }
      return v;
    }

    Message message(Map<String, Object> row, List<Field> fields, Message proto, String path) {
      Message.Builder b = proto.newBuilderForType();
      Descriptor d = proto.getDescriptorForType();
      for (Field f : fields) {
        FieldDescriptor fd = d.findFieldByName(f.getName());
        Object v = row.get(f.getName());
        if (v == null) {
          continue; // unset: proto3 presence (optional, messages) or the default
        }
        if (fd.isRepeated()) {
          Field ef = f.getChildren().get(0);
          for (Object x : (List<?>) v) {
            if (x == null) {
              throw new IllegalArgumentException("protobuf: " + path + f.getName() + ": a repeated field has no null elements");
            }
            b.addRepeatedField(fd, value(x, ef, fd, b, path + f.getName() + ".[]."));
          }
        } else {
          b.setField(fd, value(v, f, fd, b, path + f.getName() + "."));
        }
      }
      return b.build();
    }

    @SuppressWarnings("unchecked")
    Object value(Object v, Field f, FieldDescriptor fd, Message.Builder parent, String path) {
      switch (fd.getJavaType()) {
        case MESSAGE:
          return message((Map<String, Object>) v, f.getChildren(), parent.newBuilderForField(fd).getDefaultInstanceForType(), path);
        case INT:
          return ((Number) v).intValue();
        case LONG:
          return ((Number) v).longValue();
        case DOUBLE:
          return ((Number) v).doubleValue();
        case FLOAT:
          return ((Number) v).floatValue();
        case BOOLEAN:
          return v;
        case STRING:
          return v;
        case ENUM:
          return enumValue(fd.getEnumType(), (String) v, path);
        case BYTE_STRING:
          return ByteString.copyFrom((byte[]) v);
        default:
          throw new IllegalArgumentException("protobuf: " + path + ": unsupported");
      }
    }
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    Message proto = null;
    List<String> why = new ArrayList<>();
    for (Message m : candidates()) {
      String w = mismatch(ds.schema().getFields(), m.getDescriptorForType(), "");
      if (w == null) {
        proto = m;
        break;
      }
      why.add(m.getDescriptorForType().getFullName() + ": " + w);
    }
    if (proto == null) {
      throw new IllegalArgumentException("protobuf-java: no generated message matches the dataset's schema ("
          + String.join("; ", why) + ")");
    }
    Message top = proto;
    @SuppressWarnings("unchecked")
    Parser<Message> parser = (Parser<Message>) top.getParserForType();
    Converter conv = new Converter();
    boolean enums = hasEnums(top.getDescriptorForType());
    boolean[] namesSeen = {false};
    Nav nav = new Nav() {
      @Override
      public Object field(Object s, String name, int idx) {
        if (s instanceof Message m) {
          FieldDescriptor fd = m.getDescriptorForType().findFieldByName(name);
          if (fd.isRepeated()) {
            return m.getField(fd);
          }
          if (fd.hasPresence() && !m.hasField(fd)) {
            return null;
          }
          return m.getField(fd);
        }
        return Nav.super.field(s, name, idx);
      }

      @Override
      public Object leaf(Object v, ArrowType t) {
        if (v instanceof EnumValueDescriptor e) {
          String s = conv.names.get(e);
          return s != null ? s : e.getName();
        }
        if (v instanceof ByteString b) {
          return b.toByteArray();
        }
        return v;
      }
    };
    return new Bound() {
      @Override
      public Object prepare(List<Map<String, Object>> rows) {
        List<Message> out = new ArrayList<>(rows.size());
        for (Map<String, Object> r : rows) {
          out.add(conv.message(r, ds.schema().getFields(), top, ""));
        }
        return out;
      }

      @Override
      @SuppressWarnings("unchecked")
      public byte[] encode(Object natives) throws Exception {
        List<Message> ms = (List<Message>) natives;
        long total = 0;
        for (Message m : ms) {
          int n = m.getSerializedSize();
          total += CodedOutputStream.computeUInt32SizeNoTag(n) + n;
        }
        byte[] out = new byte[Math.toIntExact(total)];
        CodedOutputStream cos = CodedOutputStream.newInstance(out);
        for (Message m : ms) {
          cos.writeUInt32NoTag(m.getSerializedSize());
          m.writeTo(cos);
        }
        cos.checkNoSpaceLeft();
        return out;
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        ExtensionRegistryLite reg = ExtensionRegistryLite.getEmptyRegistry();
        List<Message> out = new ArrayList<>();
        while (!in.isAtEnd()) {
          int len = in.readRawVarint32();
          int old = in.pushLimit(len);
          out.add(parser.parseFrom(in, reg));
          in.popLimit(old);
        }
        return out;
      }

      @Override
      public Object query(byte[] bytes, Projection p) throws Exception {
        return decode(bytes);
      }

      /** Export: each message as {@code writeDelimitedTo} writes it (the bytes encode returns). */
      @Override
      @SuppressWarnings("unchecked")
      public void writeFile(Object natives, Path path) throws Exception {
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(path), 1 << 16)) {
          for (Message m : (List<Message>) natives) {
            m.writeDelimitedTo(o);
          }
        }
      }

      /**
       * Import: the file's size-prefixed messages, parsed as decode parses them (a size past the
       * end, a negative size or a message that does not parse throws).
       */
      @Override
      public Object readFile(Path path) throws Exception {
        return decode(Files.readAllBytes(path));
      }

      /** The digest's view of an imported file: the enum strings of the dataset, seen first. */
      @Override
      public Nav fileNav() {
        if (enums && !namesSeen[0]) {
          for (Map<String, Object> r : ds.rows()) {
            conv.message(r, ds.schema().getFields(), top, "");
          }
          namesSeen[0] = true;
        }
        return nav;
      }

      @Override
      public List<?> rows(Object decoded) {
        return (List<?>) decoded;
      }

      @Override
      public Nav nav() {
        return nav;
      }
    };
  }

  /** Whether message {@code d} or a message below it has an enum field. */
  static boolean hasEnums(Descriptor d) {
    return hasEnums(d, new java.util.HashSet<>());
  }

  private static boolean hasEnums(Descriptor d, java.util.Set<Descriptor> seen) {
    if (!seen.add(d)) {
      return false;
    }
    for (FieldDescriptor fd : d.getFields()) {
      if (fd.getJavaType() == FieldDescriptor.JavaType.ENUM
          || (fd.getJavaType() == FieldDescriptor.JavaType.MESSAGE && hasEnums(fd.getMessageType(), seen))) {
        return true;
      }
    }
    return false;
  }

  /** A proto3 {@code optional} scalar (explicit presence, not a message). */
  static boolean optional(FieldDescriptor fd) {
    return !fd.isRepeated() && fd.hasPresence() && fd.getJavaType() != FieldDescriptor.JavaType.MESSAGE;
  }

  /** An Arrow schema in the shape of serbench's Arrow mapping of a message (for tests and tools). */
  public static org.apache.arrow.vector.types.pojo.Schema arrowSchema(Descriptor d) {
    return new org.apache.arrow.vector.types.pojo.Schema(arrowFields(d));
  }

  static List<Field> arrowFields(Descriptor d) {
    List<Field> out = new ArrayList<>();
    for (FieldDescriptor fd : d.getFields()) {
      Field f = arrowField(fd.getName(), fd, optional(fd));
      if (fd.isRepeated()) {
        f = new Field(fd.getName(), new org.apache.arrow.vector.types.pojo.FieldType(false, ArrowType.List.INSTANCE, null),
            List.of(arrowField("element", fd, false)));
      }
      out.add(f);
    }
    return out;
  }

  static Field arrowField(String name, FieldDescriptor fd, boolean nullable) {
    ArrowType t;
    List<Field> children = null;
    switch (fd.getJavaType()) {
      case MESSAGE:
        t = ArrowType.Struct.INSTANCE;
        children = arrowFields(fd.getMessageType());
        break;
      case INT:
        t = new ArrowType.Int(32, true);
        break;
      case LONG:
        t = new ArrowType.Int(64, true);
        break;
      case DOUBLE:
        t = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
        break;
      case FLOAT:
        t = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        break;
      case BOOLEAN:
        t = ArrowType.Bool.INSTANCE;
        break;
      case BYTE_STRING:
        t = ArrowType.Binary.INSTANCE;
        break;
      default:
        t = ArrowType.Utf8.INSTANCE;
        break;
    }
    return new Field(name, new org.apache.arrow.vector.types.pojo.FieldType(nullable, t, null), children);
  }

  /** A deterministic generic value for every field of a message (enum values as lower-case text). */
  public static Map<String, Object> sampleRow(Descriptor d, java.util.SplittableRandom r, int depth) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (FieldDescriptor fd : d.getFields()) {
      if (fd.isRepeated()) {
        List<Object> xs = new ArrayList<>();
        int n = depth > 3 ? 0 : r.nextInt(4);
        for (int i = 0; i < n; i++) {
          xs.add(sampleValue(fd, r, depth));
        }
        m.put(fd.getName(), xs);
      } else if (optional(fd) && r.nextInt(3) == 0) {
        m.put(fd.getName(), null);
      } else {
        m.put(fd.getName(), sampleValue(fd, r, depth));
      }
    }
    return m;
  }

  static Object sampleValue(FieldDescriptor fd, java.util.SplittableRandom r, int depth) {
    switch (fd.getJavaType()) {
      case MESSAGE:
        return sampleRow(fd.getMessageType(), r, depth + 1);
      case INT:
        return r.nextInt();
      case LONG:
        return r.nextLong();
      case DOUBLE:
        return r.nextInt(5) == 0 ? 0.0 : r.nextDouble() * 1e5;
      case FLOAT:
        return (float) r.nextDouble();
      case BOOLEAN:
        return r.nextBoolean();
      case ENUM: {
        List<EnumValueDescriptor> vs = fd.getEnumType().getValues();
        return vs.get(r.nextInt(vs.size())).getName().toLowerCase(Locale.ROOT).replace('_', ' ');
      }
      case BYTE_STRING: {
        byte[] b = new byte[r.nextInt(8)];
        r.nextBytes(b);
        return b;
      }
      default:
        return r.nextInt(6) == 0 ? "" : fd.getName() + "-" + Long.toString(r.nextLong() & 0xffffffL, 36);
    }
  }
}
