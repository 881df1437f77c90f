package dev.serbench.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import dev.serbench.runner.arrow.ArrowRows;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** The digest test vectors of digest/testdata (docs/runner-protocol.md §8). */
public final class Vectors {
  public static final Path DIR = Path.of("../../digest/testdata");
  static final ObjectMapper M = new ObjectMapper();

  /** One vector. */
  public record Vector(String name, Schema schema, List<Map<String, Object>> rows,
      Map<String, String> columns, String table, List<List<String>> equal) {}

  public static List<Path> files() throws IOException {
    try (Stream<Path> s = Files.list(DIR)) {
      return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
  }

  public static Vector load(Path p) throws IOException {
    JsonNode root = M.readTree(p.toFile());
    long[] dictId = {0};
    List<Field> fields = new ArrayList<>();
    for (JsonNode f : root.get("schema")) {
      fields.add(field(f, dictId));
    }
    Schema schema = new Schema(fields);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (JsonNode r : root.get("rows")) {
      LinkedHashMap<String, Object> row = new LinkedHashMap<>();
      for (Field f : fields) {
        row.put(f.getName(), value(f, r.get(f.getName())));
      }
      rows.add(row);
    }
    Map<String, String> cols = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = root.get("columns").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      cols.put(e.getKey(), e.getValue().asText());
    }
    List<List<String>> eq = new ArrayList<>();
    if (root.has("equal_columns")) {
      for (JsonNode g : root.get("equal_columns")) {
        List<String> gs = new ArrayList<>();
        g.forEach(x -> gs.add(x.asText()));
        eq.add(gs);
      }
    }
    String name = p.getFileName().toString().replace(".json", "");
    return new Vector(name, schema, rows, cols, root.get("table").asText(), eq);
  }

  static Field field(JsonNode f, long[] dictId) {
    boolean nullable = !f.has("nullable") || f.get("nullable").asBoolean();
    return typed(f.get("name").asText(), f.get("type"), nullable, dictId);
  }

  public static Field typed(String name, JsonNode t, boolean nullable, long[] dictId) {
    if (t.isTextual()) {
      return new Field(name, new FieldType(nullable, scalar(t.asText()), null), null);
    }
    if (t.has("list")) {
      return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null),
          List.of(typed("item", t.get("list"), true, dictId)));
    }
    if (t.has("large_list")) {
      return new Field(name, new FieldType(nullable, ArrowType.LargeList.INSTANCE, null),
          List.of(typed("item", t.get("large_list"), true, dictId)));
    }
    if (t.has("fixed_size_list")) {
      return new Field(name, new FieldType(nullable, new ArrowType.FixedSizeList(t.get("size").asInt()), null),
          List.of(typed("item", t.get("fixed_size_list"), true, dictId)));
    }
    if (t.has("struct")) {
      List<Field> cs = new ArrayList<>();
      for (JsonNode c : t.get("struct")) {
        cs.add(field(c, dictId));
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), cs);
    }
    if (t.has("dictionary")) {
      Field vf = typed(name, t.get("dictionary"), nullable, dictId);
      DictionaryEncoding enc = new DictionaryEncoding(dictId[0]++, false, new ArrowType.Int(32, true));
      return new Field(name, new FieldType(nullable, vf.getType(), enc), vf.getChildren());
    }
    throw new IllegalArgumentException("unknown type " + t);
  }

  static ArrowType scalar(String s) {
    switch (s) {
      case "bool": return ArrowType.Bool.INSTANCE;
      case "int8": return new ArrowType.Int(8, true);
      case "int16": return new ArrowType.Int(16, true);
      case "int32": return new ArrowType.Int(32, true);
      case "int64": return new ArrowType.Int(64, true);
      case "uint8": return new ArrowType.Int(8, false);
      case "uint16": return new ArrowType.Int(16, false);
      case "uint32": return new ArrowType.Int(32, false);
      case "uint64": return new ArrowType.Int(64, false);
      case "float32": return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "float64": return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "string": return ArrowType.Utf8.INSTANCE;
      case "large_string": return ArrowType.LargeUtf8.INSTANCE;
      case "binary": return ArrowType.Binary.INSTANCE;
      case "date32": return new ArrowType.Date(DateUnit.DAY);
      case "timestamp[s]": return new ArrowType.Timestamp(TimeUnit.SECOND, "UTC");
      case "timestamp[ms]": return new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC");
      case "timestamp[us]": return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
      case "timestamp[ns]": return new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC");
      default:
        if (s.startsWith("decimal128(")) {
          String[] ps = s.substring(11, s.length() - 1).split(",");
          return new ArrowType.Decimal(Integer.parseInt(ps[0].trim()), Integer.parseInt(ps[1].trim()), 128);
        }
        throw new IllegalArgumentException("unknown type " + s);
    }
  }

  /** A JSON value of the vector grammar as a generic value (the model of Dataset). */
  static Object value(Field f, JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Bool:
        return v.asBoolean();
      case Int: {
        ArrowType.Int it = (ArrowType.Int) t;
        long x = v.isBigInteger() ? v.bigIntegerValue().longValue() : v.asLong();
        boolean asInt = it.getBitWidth() < 32 || (it.getBitWidth() == 32 && it.getIsSigned());
        return asInt ? (Object) (int) x : (Object) x;
      }
      case FloatingPoint: {
        boolean single = ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.SINGLE;
        if (v.isTextual()) {
          String s = v.asText();
          if (s.startsWith("bits:")) {
            String h = s.substring(5);
            if (h.length() == 8) {
              return Float.intBitsToFloat((int) Long.parseLong(h, 16));
            }
            return Double.longBitsToDouble(Long.parseUnsignedLong(h, 16));
          }
          double d = switch (s) {
            case "NaN" -> Double.NaN;
            case "Infinity" -> Double.POSITIVE_INFINITY;
            case "-Infinity" -> Double.NEGATIVE_INFINITY;
            case "-0.0" -> -0.0;
            default -> Double.parseDouble(s);
          };
          return single ? (Object) (float) d : (Object) d;
        }
        return single ? (Object) (float) v.asDouble() : (Object) v.asDouble();
      }
      case Utf8:
      case LargeUtf8:
        return v.asText();
      case Binary:
        return HexFormat.of().parseHex(v.asText());
      case Date:
        return v.asInt();
      case Timestamp:
        return ArrowRows.toMicros(v.asLong(), ((ArrowType.Timestamp) t).getUnit());
      case Decimal:
        return new BigDecimal(v.asText()).setScale(((ArrowType.Decimal) t).getScale(), RoundingMode.UNNECESSARY);
      case Struct: {
        LinkedHashMap<String, Object> m = new LinkedHashMap<>();
        for (Field c : f.getChildren()) {
          m.put(c.getName(), value(c, v.get(c.getName())));
        }
        return m;
      }
      case List:
      case LargeList:
      case FixedSizeList: {
        List<Object> xs = new ArrayList<>();
        for (JsonNode e : v) {
          xs.add(value(f.getChildren().get(0), e));
        }
        return xs;
      }
      default:
        throw new IllegalArgumentException("unsupported " + t);
    }
  }
}
