package dev.serbench.runner.kit;

import dev.serbench.runner.arrow.Dataset;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A subject that writes only {@link #encode} and {@link #decode}: its native objects are the
 * dataset's rows in the kit's generic model (a {@code java.util.List} of one {@code
 * LinkedHashMap<String,Object>} per row, see {@link dev.serbench.runner.arrow.Dataset}), built
 * outside timing; {@code encode} turns them into bytes and {@code decode} builds rows back from
 * bytes, which the digest reads through {@link #nav()} (by default: {@code Map} by field name,
 * {@code Object[]} by position, {@code List} or {@code Object[]} as lists, leaves as the generic
 * model's values). A query decodes everything (a row format has no other way) and the digest
 * reads the projected columns.
 *
 * <pre>{@code
 * final class Mine extends GenericSubject {
 *   Mine() { super("mine", "mine-format", "org.example:mine", Kit.labels("codegen", "no")); }
 *   public byte[] encode(List<Map<String, Object>> rows) throws Exception { ... }
 *   public List<?> decode(byte[] bytes) throws Exception { ... }
 * }
 * }</pre>
 */
public abstract class GenericSubject implements Subject {
  private final String name;
  private final String format;
  private final String library;
  private final String version;
  private final Map<String, String> labels;

  /** A subject whose version is {@link Subject#version()}'s default (the library's pom.properties). */
  protected GenericSubject(String name, String format, String library, Map<String, String> labels) {
    this(name, format, library, null, labels);
  }

  /** A subject of {@code library} at {@code version} (null: {@link Subject#version()}'s default). */
  protected GenericSubject(String name, String format, String library, String version, Map<String, String> labels) {
    this.name = name;
    this.format = format;
    this.library = library;
    this.version = version;
    this.labels = labels;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String format() {
    return format;
  }

  @Override
  public String library() {
    return library;
  }

  @Override
  public String version() {
    return version != null ? version : Subject.super.version();
  }

  @Override
  public List<String> ops() {
    if (!files()) {
      return List.of("encode", "decode", "query");
    }
    return List.of("encode", "decode", "query", FILE_OPS.get(0), FILE_OPS.get(1));
  }

  /** Whether the subject implements the file ops (protocol §10). */
  protected boolean files() {
    return false;
  }

  /** Export: writes the rows (the dataset's {@code fields}) as the format's file. */
  protected void writeFile(List<Map<String, Object>> rows, List<org.apache.arrow.vector.types.pojo.Field> fields, Path path)
      throws Exception {
    throw new UnsupportedOperationException("export");
  }

  /** Import: reads the format's file into rows. */
  protected List<?> readFile(Path path) throws Exception {
    throw new UnsupportedOperationException("import");
  }

  /** How the digest reads {@link #readFile}'s rows (by default as {@link #nav()} does). */
  protected dev.serbench.runner.digest.Nav fileNav() {
    return nav();
  }

  @Override
  public Map<String, String> labels() {
    return labels;
  }

  /** {@link Kit#labels(String...)}, for a subclass's constructor. */
  protected static Map<String, String> labels(String... kv) {
    return Kit.labels(kv);
  }

  /** Encodes the rows (the timed encode; the case's codec compresses what it returns). */
  public abstract byte[] encode(List<Map<String, Object>> rows) throws Exception;

  /**
   * Decodes rows from bytes {@link #encode} wrote (the timed decode): every value built, as the
   * library's own objects that {@link #nav()} reads.
   */
  public abstract List<?> decode(byte[] bytes) throws Exception;

  /** A decode of bytes to rows, as {@link #decode}. */
  @FunctionalInterface
  protected interface Decode {
    /** Decodes rows from bytes {@link #encode} wrote. */
    List<?> decode(byte[] bytes) throws Exception;
  }

  /**
   * The decode of a dataset of this schema (the timed decode): {@link #decode}, unless a subject
   * reads some schemas otherwise (Jackson reads the floats of rows holding decimals as
   * BigDecimal, which a double cannot hold exactly). Called once per case, outside timing.
   */
  protected Decode decodeFor(org.apache.arrow.vector.types.pojo.Schema schema) {
    return this::decode;
  }

  /** How the digest reads this subject's decoded objects. */
  protected dev.serbench.runner.digest.Nav nav() {
    return dev.serbench.runner.digest.Nav.DEFAULT;
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    GenericSubject s = this;
    Decode dec = decodeFor(ds.schema());
    return new Bound() {
      @Override
      public Object prepare(List<Map<String, Object>> rows) {
        return rows;
      }

      @Override
      @SuppressWarnings("unchecked")
      public byte[] encode(Object natives) throws Exception {
        return s.encode((List<Map<String, Object>>) natives);
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        return dec.decode(bytes);
      }

      @Override
      public Object query(byte[] bytes, Projection p) throws Exception {
        return dec.decode(bytes);
      }

      @Override
      public List<?> rows(Object decoded) {
        return (List<?>) decoded;
      }

      @Override
      public dev.serbench.runner.digest.Nav nav() {
        return s.nav();
      }

      @Override
      @SuppressWarnings("unchecked")
      public void writeFile(Object natives, Path path) throws Exception {
        s.writeFile((List<Map<String, Object>>) natives, ds.schema().getFields(), path);
      }

      @Override
      public Object readFile(Path path) throws Exception {
        return s.readFile(path);
      }

      @Override
      public dev.serbench.runner.digest.Nav fileNav() {
        return s.fileNav();
      }
    };
  }
}
