package dev.serbench.runner.subjects;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.kit.GenericSubject;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * jackson-databind over JSON, Smile or CBOR: the rows as one array of objects, read back as
 * {@code List<LinkedHashMap>} (Jackson's "untyped" mapping). JSON writes NaN and ±Infinity as
 * bare tokens (read with ALLOW_NON_NUMERIC_NUMBERS) and binary as base64 text, which the digest
 * decodes back for binary columns.
 */
public final class JacksonSubject extends GenericSubject {
  private final ObjectWriter writer;
  private final ObjectReader reader;
  private final ObjectReader exactReader;
  private final ObjectMapper mapper;
  private final boolean base64;
  private final boolean files;

  private JacksonSubject(String name, String format, String library, ObjectMapper m, boolean base64, boolean files) {
    super(name, format, library, labels("codegen", "no", "reuse", "no", "zero_copy", "no",
        "time_precision", "us", "model", "java.util.Map/List (untyped)"));
    this.writer = m.writer();
    this.reader = m.readerFor(List.class);
    this.exactReader = reader.with(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    this.mapper = m;
    this.base64 = base64;
    this.files = files;
  }

  public static JacksonSubject json() {
    JsonFactory f = JsonFactory.builder()
        .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
        .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .build();
    return new JacksonSubject("jackson-json", "json", "com.fasterxml.jackson.core:jackson-databind",
        new ObjectMapper(f), true, true);
  }

  public static JacksonSubject smile() {
    return new JacksonSubject("jackson-smile", "smile", "com.fasterxml.jackson.dataformat:jackson-dataformat-smile",
        new ObjectMapper(new SmileFactory()), false, false);
  }

  public static JacksonSubject cbor() {
    return new JacksonSubject("jackson-cbor", "cbor", "com.fasterxml.jackson.dataformat:jackson-dataformat-cbor",
        new ObjectMapper(new CBORFactory()), false, true);
  }

  @Override
  public byte[] encode(List<Map<String, Object>> rows) throws Exception {
    return writer.writeValueAsBytes(rows);
  }

  @Override
  public List<?> decode(byte[] bytes) throws Exception {
    return reader.readValue(bytes);
  }

  /**
   * Rows holding a decimal column are read with {@code USE_BIG_DECIMAL_FOR_FLOATS}: untyped, Jackson
   * reads a JSON number with a fraction as a double, which cannot hold a decimal of more than 15
   * digits. The floats of such rows come back as BigDecimal too; the digest takes their double.
   */
  @Override
  protected Decode decodeFor(org.apache.arrow.vector.types.pojo.Schema schema) {
    if (hasDecimal(schema.getFields())) {
      return exactReader::readValue;
    }
    return this::decode;
  }

  private static boolean hasDecimal(List<org.apache.arrow.vector.types.pojo.Field> fields) {
    for (org.apache.arrow.vector.types.pojo.Field f : fields) {
      if (f.getType() instanceof ArrowType.Decimal || hasDecimal(f.getChildren())) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected boolean files() {
    return files;
  }

  /**
   * JSON: JSON Lines, one object per line ({@link FileValues.Style#JSON}: RFC 3339 timestamps,
   * ISO dates, decimal text, base64 binary). CBOR: a CBOR sequence (RFC 8742) of maps, the generic
   * model as Jackson writes it (timestamps as integers in the column's unit, dates as integer
   * days, decimals as text, binary as byte strings).
   */
  @Override
  protected void writeFile(List<Map<String, Object>> rows, List<org.apache.arrow.vector.types.pojo.Field> fields,
      java.nio.file.Path path) throws Exception {
    FileValues.Style style = base64 ? FileValues.Style.JSON : FileValues.Style.BINARY;
    try (java.io.OutputStream os = new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(path), 1 << 16);
        com.fasterxml.jackson.core.JsonGenerator g = mapper.getFactory().createGenerator(os)) {
      if (base64) {
        g.setRootValueSeparator(new com.fasterxml.jackson.core.io.SerializedString("\n"));
      }
      for (Map<String, Object> r : rows) {
        mapper.writeValue(g, FileValues.row(r, fields, style));
      }
      if (base64) {
        g.writeRaw('\n');
      }
    }
  }

  @Override
  protected List<?> readFile(java.nio.file.Path path) throws Exception {
    // a sequence of root-level values: JSON Lines (whitespace between values) or a CBOR sequence
    try (com.fasterxml.jackson.databind.MappingIterator<Object> it = mapper.readerFor(Map.class)
        .readValues(java.nio.file.Files.readAllBytes(path))) {
      return it.readAll();
    }
  }

  @Override
  protected Nav fileNav() {
    return base64 ? FileValues.JSON_NAV : FileValues.NAV;
  }

  private static final Nav BASE64 = new Nav() {
    @Override
    public Object leaf(Object v, ArrowType t) {
      if (v instanceof String s) {
        switch (t.getTypeID()) {
          case Binary:
          case LargeBinary:
          case BinaryView:
          case FixedSizeBinary:
            return Base64.getDecoder().decode(s);
          default:
            break;
        }
      }
      return v;
    }
  };

  @Override
  protected Nav nav() {
    return base64 ? BASE64 : Nav.DEFAULT;
  }
}
