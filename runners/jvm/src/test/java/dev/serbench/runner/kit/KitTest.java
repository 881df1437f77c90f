package dev.serbench.runner.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit's public API as an outside runner uses it: subjects that write only encode and decode,
 * served by {@link Kit#run} through the whole protocol (hello, verify by digest, calibration,
 * interleaved rounds, codecs, the copy limit row, error lines, exit codes).
 */
class KitTest {
  static final ObjectMapper M = new ObjectMapper();

  @TempDir
  Path work;

  /** Java serialization of the generic rows: a subject as a user writes it. */
  static final class ObjectStream extends GenericSubject {
    ObjectStream(String name) {
      super(name, "java-serialization", "java.base", "test-1.2.3",
          Kit.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us"));
    }

    @Override
    public byte[] encode(List<Map<String, Object>> rows) throws Exception {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      try (ObjectOutputStream o = new ObjectOutputStream(b)) {
        o.writeObject(new ArrayList<>(rows));
      }
      return b.toByteArray();
    }

    @Override
    public List<?> decode(byte[] bytes) throws Exception {
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
        return (List<?>) in.readObject();
      }
    }
  }

  /** A subject whose decode drops a column: the runner reports the digest, serbench compares. */
  static final class Lossy extends GenericSubject {
    Lossy() {
      super("lossy", "lossy", "com.fasterxml.jackson.core:jackson-databind", Kit.labels());
    }

    @Override
    public byte[] encode(List<Map<String, Object>> rows) throws Exception {
      return new ObjectStream("x").encode(rows);
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<?> decode(byte[] bytes) throws Exception {
      List<Map<String, Object>> rows = (List<Map<String, Object>>) new ObjectStream("x").decode(bytes);
      for (Map<String, Object> r : rows) {
        r.put("name", null);
      }
      return rows;
    }
  }

  /** A subject that fails where the test says: at encode (setup) or at decode (verify). */
  static final class Broken extends GenericSubject {
    final boolean atEncode;

    Broken(String name, boolean atEncode) {
      super(name, "broken", "no.such:library", Kit.labels());
      this.atEncode = atEncode;
    }

    @Override
    public byte[] encode(List<Map<String, Object>> rows) {
      if (atEncode) {
        throw new IllegalStateException("cannot encode");
      }
      return new byte[] {1, 2, 3};
    }

    @Override
    public List<?> decode(byte[] bytes) {
      throw new IllegalStateException("cannot decode");
    }
  }

  static List<Subject> subjects() {
    return List.of(new ObjectStream("object-stream"), new ObjectStream("object-stream-2"), new Lossy(),
        new Broken("broken-encode", true), new Broken("broken-decode", false));
  }

  record Run(int code, List<JsonNode> lines, String stderr) {
    List<JsonNode> of(String type, String id) {
      List<JsonNode> out = new ArrayList<>();
      for (JsonNode l : lines) {
        if (l.get("type").asText().equals(type) && (id == null || l.path("case").asText().equals(id))) {
          out.add(l);
        }
      }
      return out;
    }
  }

  static Run kit(List<? extends Subject> subjects, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Kit.run(args, "mine", subjects, out, new PrintStream(err, true, StandardCharsets.UTF_8), false);
    List<JsonNode> lines = new ArrayList<>();
    for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!l.isEmpty()) {
        lines.add(M.readTree(l));
      }
    }
    return new Run(code, lines, err.toString(StandardCharsets.UTF_8));
  }

  static String c(String id, String group, String subject, String role, String op, int count, String codec,
      String limitOf) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("group", group);
    m.put("subject", subject);
    m.put("role", role);
    m.put("op", op);
    m.put("dataset", "mixed-40");
    m.put("size", 40);
    m.put("codec", codec);
    m.put("query", op.equals("query") ? "id,attrs.b" : "");
    m.put("count", count);
    m.put("min_count", 1);
    m.put("budget_ns", 0);
    m.put("per_round", 0);
    m.put("no_warmup", false);
    m.put("limit_of", limitOf);
    m.put("params", Map.of());
    try {
      return M.writeValueAsString(m);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void hello() throws Exception {
    Run r = kit(subjects(), "hello", "--protocol", "1");
    assertEquals(0, r.code(), r.stderr());
    assertEquals(2, r.lines().size());
    JsonNode h = r.lines().get(0);
    assertEquals("hello", h.get("type").asText());
    assertEquals(Kit.PROTOCOL, h.get("protocol").asInt());
    assertEquals("mine", h.get("runner").asText());
    assertEquals("java", h.get("language").asText());
    assertEquals(dev.serbench.runner.Versions.runner(), h.get("runner_version").asText()); // the kit's, as the Python kit says its own
    assertEquals(5, h.get("subjects").size());
    JsonNode s = h.get("subjects").get(0);
    assertEquals("object-stream", s.get("name").asText());
    assertEquals("java-serialization", s.get("format").asText());
    assertEquals("java.base", s.get("library").asText());
    assertEquals("test-1.2.3", s.get("version").asText());
    assertEquals("[\"encode\",\"decode\",\"query\"]", s.get("ops").toString());
    assertEquals("none", s.get("codecs").get(0).asText());
    assertTrue(s.get("codecs").toString().contains("zstd"));
    assertEquals("{\"codegen\":\"no\",\"reuse\":\"no\",\"zero_copy\":\"no\",\"time_precision\":\"us\"}",
        s.get("labels").toString());
    // the default version: the library's own pom.properties, else unknown
    assertEquals(com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString(),
        h.get("subjects").get(2).get("version").asText());
    assertEquals("unknown", h.get("subjects").get(3).get("version").asText());
    assertEquals("end", r.lines().get(1).get("type").asText());
  }

  @Test
  void badSubjects() throws Exception {
    assertThrows(IllegalArgumentException.class,
        () -> Kit.subjects(List.of(new ObjectStream("a"), new ObjectStream("a"))));
    assertThrows(IllegalArgumentException.class, () -> Kit.subjects(List.of(new ObjectStream("copy"))));
    assertThrows(IllegalArgumentException.class, () -> Kit.subjects(List.of(new ObjectStream("a/b"))));
    assertThrows(IllegalArgumentException.class, () -> Kit.subjects(List.of(new ObjectStream(""))));
    assertThrows(IllegalArgumentException.class, () -> Kit.labels("odd"));
    Run r = kit(List.of(new ObjectStream("a"), new ObjectStream("a")), "hello", "--protocol", "1");
    assertEquals(2, r.code());
    assertEquals("error", r.lines().get(0).get("type").asText());
    assertTrue(r.lines().get(0).get("message").asText().contains("two subjects named a"), r.lines().toString());
  }

  @Test
  void usageAndProtocol() throws Exception {
    assertEquals(2, kit(subjects(), "frobnicate").code());
    assertEquals(2, kit(subjects(), "run", "--protocol", "1", "--bogus", "x").code());
    Run p = kit(subjects(), "hello", "--protocol", "2");
    assertEquals(2, p.code());
    assertEquals("hello", p.lines().get(0).get("type").asText());
    assertEquals("protocol 2 requested, this runner speaks 1", p.lines().get(1).get("message").asText());
    Run w = kit(subjects(), "run", "--protocol", "1", "--work", work.resolve("missing").toString());
    assertEquals(1, w.code());
    assertFalse(w.lines().get(1).has("case"));
    assertEquals("end", w.lines().get(w.lines().size() - 1).get("type").asText());
  }

  @Test
  void run() throws Exception {
    Dataset ds = SampleData.mixed(40, 7);
    Path dir = work.resolve("datasets").resolve("mixed-40");
    Files.createDirectories(dir);
    Files.createDirectories(work.resolve("tmp"));
    try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
      ArrowFiles.writeStream(ds.schema(), ds.rows(), 15, o);
    }
    Files.writeString(work.resolve("run.json"),
        "{\"protocol\":1,\"run_id\":\"t\",\"benchtime_ns\":2000000,\"max_iters\":1000000000,\"count\":2,\"seed\":1}");
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    List<String> cases = List.of(
        c("d/os", "d", "object-stream", "baseline", "decode", 3, "", ""),
        c("d/os2", "d", "object-stream-2", "subject", "decode", 3, "", ""),
        c("d/copy", "d", "copy", "limit", "copy", 3, "", "d/os"),
        c("e/os/zstd", "e", "object-stream", "subject", "encode", 2, "zstd:3", ""),
        c("e/os/gzip", "e", "object-stream", "subject", "encode", 2, "gzip:6", ""),
        c("q/os", "", "object-stream", "subject", "query", 1, "", ""),
        c("l/lossy", "", "lossy", "subject", "decode", 1, "", ""),
        c("b/enc", "", "broken-encode", "subject", "encode", 1, "", ""),
        c("b/dec", "", "broken-decode", "subject", "decode", 1, "", ""),
        c("b/codec", "", "object-stream", "subject", "decode", 1, "brotli:99", ""),
        c("b/op", "", "object-stream", "subject", "frobnicate", 1, "", ""));
    Files.write(work.resolve("cases.jsonl"), cases);

    Run r = kit(subjects(), "run", "--protocol", "1", "--work", work.toString());
    assertEquals(0, r.code(), r.stderr());
    List<JsonNode> ls = r.lines();
    assertEquals("hello", ls.get(0).get("type").asText());
    JsonNode end = ls.get(ls.size() - 1);
    assertEquals("end", end.get("type").asText());
    assertEquals(11, end.get("cases").asInt());
    assertEquals(4, end.get("failed").asInt()); // the lossy decode is not a failure here: serbench compares its digest

    // verify: the digest of what decode returned, equal to the source rows' for a faithful subject
    for (String id : List.of("d/os", "d/os2", "e/os/zstd", "e/os/gzip")) {
      JsonNode v = r.of("verify", id).get(0);
      assertTrue(v.get("ok").asBoolean(), id);
      assertEquals(want.table(), v.get("digest").get("table").asText(), id);
      assertEquals(40, v.get("digest").get("rows").asInt());
      assertTrue(v.get("encoded_bytes").asLong() > 0);
    }
    // the codecs shrink what encode wrote
    long plain = r.of("verify", "d/os").get(0).get("encoded_bytes").asLong();
    assertTrue(r.of("verify", "e/os/zstd").get(0).get("encoded_bytes").asLong() < plain);
    assertTrue(r.of("verify", "e/os/gzip").get(0).get("encoded_bytes").asLong() < plain);
    // query: the projected columns only
    JsonNode q = r.of("verify", "q/os").get(0).get("digest");
    assertEquals(2, q.get("columns").size());
    assertEquals(want.column("attrs.b"), q.get("columns").get(1).get("digest").asText());
    // a lossy decode: ok, with the one column's digest different (serbench names it)
    JsonNode lossy = r.of("verify", "l/lossy").get(0);
    assertTrue(lossy.get("ok").asBoolean());
    for (JsonNode col : lossy.get("digest").get("columns")) {
      String path = col.get("path").asText();
      assertEquals(!path.equals("name"), want.column(path).equals(col.get("digest").asText()), path);
    }
    // copy row: no digest, the source's size
    JsonNode cv = r.of("verify", "d/copy").get(0);
    assertTrue(cv.get("digest").isNull());
    assertEquals(plain, cv.get("encoded_bytes").asLong());
    // failures: a setup error, a failed round trip, an unknown codec and op
    assertEquals("setup", r.of("error", "b/enc").get(0).get("phase").asText());
    assertTrue(r.of("error", "b/enc").get(0).get("message").asText().contains("cannot encode"));
    JsonNode bd = r.of("verify", "b/dec").get(0);
    assertFalse(bd.get("ok").asBoolean());
    assertTrue(bd.get("reason").asText().contains("cannot decode"), bd.toString());
    assertEquals("setup", r.of("error", "b/codec").get(0).get("phase").asText());
    assertTrue(r.of("error", "b/op").get(0).get("message").asText().contains("unknown op frobnicate"));
    for (String id : List.of("b/enc", "b/dec", "b/codec", "b/op")) {
      assertTrue(r.of("sample", id).isEmpty(), id);
    }

    // samples: counts and the interleaving of §4.3 (§9's pattern)
    Map<String, Integer> counts = new HashMap<>();
    List<String> group = new ArrayList<>();
    for (JsonNode s : r.of("sample", null)) {
      String id = s.get("case").asText();
      counts.merge(id, 1, Integer::sum);
      assertTrue(s.get("iters").asLong() >= 1);
      assertTrue(s.get("ns_per_op").asDouble() > 0);
      if (id.startsWith("d/")) {
        group.add(s.get("round").asInt() + ":" + s.get("order").asInt() + ":" + id);
      }
    }
    assertEquals(Map.of("d/os", 3, "d/os2", 3, "d/copy", 3, "e/os/zstd", 2, "e/os/gzip", 2, "q/os", 1, "l/lossy", 1),
        counts);
    assertEquals(List.of(
        "1:0:d/os", "1:1:d/os2", "1:2:d/copy",
        "2:0:d/os2", "2:1:d/copy", "2:2:d/os",
        "3:0:d/copy", "3:1:d/os", "3:2:d/os2"), group);
  }
}
