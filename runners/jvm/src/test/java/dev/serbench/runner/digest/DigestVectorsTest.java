package dev.serbench.runner.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.serbench.runner.Vectors;
import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.ArrowRows;
import dev.serbench.runner.arrow.Dataset;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DigestVectorsTest {
  static Stream<Path> vectors() throws Exception {
    List<Path> fs = Vectors.files();
    assertFalse(fs.isEmpty(), "no vectors in " + Vectors.DIR.toAbsolutePath());
    return fs.stream();
  }

  static void check(Vectors.Vector v, Digest.Result r, String how) {
    for (Map.Entry<String, String> e : v.columns().entrySet()) {
      assertEquals(e.getValue(), r.column(e.getKey()), v.name() + " (" + how + "): column " + e.getKey());
    }
    assertEquals(v.columns().size(), r.columns().size(), v.name() + ": column count");
    assertEquals(v.table(), r.table(), v.name() + " (" + how + "): table");
    assertEquals(v.rows().size(), r.rows());
    for (List<String> g : v.equal()) {
      for (String c : g) {
        assertEquals(r.column(g.get(0)), r.column(c), v.name() + ": equal_columns " + g);
      }
    }
  }

  /** The generic rows built straight from the vector's JSON. */
  @ParameterizedTest
  @MethodSource("vectors")
  void genericRows(Path p) throws Exception {
    Vectors.Vector v = Vectors.load(p);
    check(v, Digest.digest(v.schema(), v.rows(), Nav.DEFAULT, null), "generic");
  }

  /** Through an Arrow IPC stream, in one batch and in batches of one and two rows. */
  @ParameterizedTest
  @MethodSource("vectors")
  void throughArrow(Path p) throws Exception {
    Vectors.Vector v = Vectors.load(p);
    for (int batch : new int[] {1000, 1, 2}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ArrowFiles.writeStream(v.schema(), v.rows(), batch, out);
      Dataset ds = ArrowRows.read(v.name(), new ByteArrayInputStream(out.toByteArray()));
      check(v, Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null), "arrow, batches of " + batch);
    }
  }

  /** The worked example of §9. */
  @Test
  void workedExample() throws Exception {
    var schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        Vectors.typed("id", com.fasterxml.jackson.databind.node.TextNode.valueOf("int64"), true, new long[1]),
        Vectors.typed("tags", new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"list\":\"string\"}"), true, new long[1])));
    java.util.LinkedHashMap<String, Object> r0 = new java.util.LinkedHashMap<>();
    r0.put("id", 7L);
    r0.put("tags", List.of("a", ""));
    java.util.LinkedHashMap<String, Object> r1 = new java.util.LinkedHashMap<>();
    r1.put("id", null);
    r1.put("tags", null);
    Digest.Result r = Digest.digest(schema, List.of(r0, r1), Nav.DEFAULT, null);
    assertEquals("1b6adcc983ad40868b3d1949eeaf3603", r.column("id"));
    assertEquals("0dcc16f7a897b8ef8c0d1b617f194d02", r.column("tags.[]"));
    assertEquals("6b7ca86f5258e5bd6afcf20fa2fbc1dd", r.table());
  }

  @Test
  void emptyTable() throws Exception {
    var schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        Vectors.typed("id", com.fasterxml.jackson.databind.node.TextNode.valueOf("int64"), true, new long[1])));
    Digest.Result r = Digest.digest(schema, List.of(), Nav.DEFAULT, null);
    assertEquals("e3b0c44298fc1c149afbf4c8996fb924", r.column("id"));
  }
}
