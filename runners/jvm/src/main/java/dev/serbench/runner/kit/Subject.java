package dev.serbench.runner.kit;

import dev.serbench.runner.Versions;
import dev.serbench.runner.arrow.Dataset;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A serialization library measured by a runner, bound per dataset: what the built-in runner's
 * subjects implement and what {@link Kit#main} runs. Most subjects extend {@link GenericSubject}
 * and write only its {@code encode} and {@code decode}; implement this interface directly for
 * native objects of your own ({@link Bound#prepare}), a query, or a decode that must release
 * what it built.
 */
public interface Subject {
  /** The name announced in hello (unique within the runner; not {@code copy}). */
  String name();

  /** The format's name. */
  String format();

  /** The library as {@code group:artifact}. */
  String library();

  /**
   * The library's resolved version: by default the version in the library's own {@code
   * META-INF/maven/GROUP/ARTIFACT/pom.properties} on the class path (what a jar built by Maven, or
   * a shaded jar, carries), else the one the built-in runner pins, else {@code unknown}.
   */
  default String version() {
    return Versions.of(library());
  }

  /** The ops it supports (encode, decode, query). */
  default List<String> ops() {
    return List.of("encode", "decode");
  }

  /** The optional file ops (protocol §10) a subject announces among its ops. */
  List<String> FILE_OPS = List.of("export", "import");

  /** Whether it binds to any dataset (false: only to the schemas it has generated code for). */
  default boolean anySchema() {
    return true;
  }

  /**
   * serbench's fairness labels ({@code codegen}, {@code reuse}, {@code zero_copy}, …) as strings;
   * {@link Kit#labels} makes the map.
   */
  Map<String, String> labels();

  /** Binds the subject to a dataset's schema; {@code tmp} is WORK/tmp (may be null in tests). */
  Bound bind(Dataset ds, Path tmp) throws Exception;

  /** A subject bound to one dataset. */
  interface Bound extends AutoCloseable {
    /** The subject's native objects for the rows, built outside timing. */
    Object prepare(List<Map<String, Object>> rows) throws Exception;

    /** Native objects → bytes. */
    byte[] encode(Object natives) throws Exception;

    /** Bytes → native objects (every object built). */
    Object decode(byte[] bytes) throws Exception;

    /** The decode op as timed: decode and release what must be released explicitly. */
    default Object decodeTimed(byte[] bytes) throws Exception {
      return decode(bytes);
    }

    /** Bytes → the native objects a projection selects ({@code columns}: leaf paths). */
    default Object query(byte[] bytes, Projection p) throws Exception {
      throw new UnsupportedOperationException("query");
    }

    default Object queryTimed(byte[] bytes, Projection p) throws Exception {
      return query(bytes, p);
    }

    /** The top-level row objects of decoded native objects, for the digest. */
    List<?> rows(Object decoded) throws Exception;

    /** How the digest reads the native objects. */
    default dev.serbench.runner.digest.Nav nav() {
      return dev.serbench.runner.digest.Nav.DEFAULT;
    }

    /**
     * Export (protocol §10): writes the native objects to {@code path} as the file the subject's
     * format defines. Only subjects announcing {@code export} implement it.
     */
    default void writeFile(Object natives, Path path) throws Exception {
      throw new UnsupportedOperationException("export");
    }

    /**
     * Import (protocol §10): reads the format's file at {@code path}, written by this or any
     * other language, into decoded objects that {@link #rows} and {@link #fileNav} read.
     */
    default Object readFile(Path path) throws Exception {
      throw new UnsupportedOperationException("import");
    }

    /** The top-level row objects of what {@link #readFile} returned, for the digest. */
    default List<?> fileRows(Object read) throws Exception {
      return rows(read);
    }

    /** How the digest reads what {@link #readFile} returned. */
    default dev.serbench.runner.digest.Nav fileNav() {
      return nav();
    }

    /** Releases native objects (off-heap memory); a no-op for heap objects. */
    default void release(Object o) throws Exception {}

    @Override
    default void close() throws Exception {}
  }
}
