package dev.serbench.runner.subjects;

import dev.serbench.runner.arrow.Dataset;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A schema-less subject whose native objects are the generic rows themselves (a
 * {@code java.util.List} of {@code LinkedHashMap}), encoded as one sequence value. A query
 * decodes everything (a row format has no other way) and the digest reads the projected columns.
 */
public abstract class GenericSubject implements Subject {
  private final String name;
  private final String format;
  private final String library;
  private final Map<String, String> labels;

  protected GenericSubject(String name, String format, String library, Map<String, String> labels) {
    this.name = name;
    this.format = format;
    this.library = library;
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

  /** How the digest reads {@link #readFile}'s rows. */
  protected dev.serbench.runner.digest.Nav fileNav() {
    return FileValues.NAV;
  }

  @Override
  public Map<String, String> labels() {
    return labels;
  }

  static Map<String, String> labels(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  /** Encodes the rows. */
  protected abstract byte[] write(List<Map<String, Object>> rows) throws Exception;

  /** Decodes rows. */
  protected abstract List<?> read(byte[] bytes) throws Exception;

  /** How the digest reads this subject's decoded objects. */
  protected dev.serbench.runner.digest.Nav nav() {
    return dev.serbench.runner.digest.Nav.DEFAULT;
  }

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    GenericSubject s = this;
    return new Bound() {
      @Override
      public Object prepare(List<Map<String, Object>> rows) {
        return rows;
      }

      @Override
      @SuppressWarnings("unchecked")
      public byte[] encode(Object natives) throws Exception {
        return s.write((List<Map<String, Object>>) natives);
      }

      @Override
      public Object decode(byte[] bytes) throws Exception {
        return s.read(bytes);
      }

      @Override
      public Object query(byte[] bytes, Projection p) throws Exception {
        return s.read(bytes);
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
