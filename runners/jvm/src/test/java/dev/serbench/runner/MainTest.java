package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs Main on a work directory built here and checks the protocol lines (§3, §4.3, §9). */
class MainTest {
  static final ObjectMapper M = new ObjectMapper();

  @TempDir
  Path work;

  record Run(int code, List<JsonNode> lines, String stderr) {
    List<JsonNode> of(String type) {
      List<JsonNode> out = new ArrayList<>();
      for (JsonNode l : lines) {
        if (l.get("type").asText().equals(type)) {
          out.add(l);
        }
      }
      return out;
    }

    List<JsonNode> of(String type, String id) {
      List<JsonNode> out = new ArrayList<>();
      for (JsonNode l : of(type)) {
        if (l.path("case").asText().equals(id)) {
          out.add(l);
        }
      }
      return out;
    }
  }

  static Run main(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, out, new PrintStream(err, true, StandardCharsets.UTF_8), false);
    List<JsonNode> lines = new ArrayList<>();
    for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!l.isEmpty()) {
        lines.add(M.readTree(l));
      }
    }
    return new Run(code, lines, err.toString(StandardCharsets.UTF_8));
  }

  static String c(String id, String group, String subject, String role, String op, String dataset, int count,
      String extra) {
    return "{\"id\":\"" + id + "\",\"group\":\"" + group + "\",\"subject\":\"" + subject + "\",\"role\":\"" + role
        + "\",\"op\":\"" + op + "\",\"dataset\":\"" + dataset + "\",\"size\":40,\"codec\":\"\",\"query\":\"\",\"count\":"
        + count + ",\"min_count\":1,\"budget_ns\":0,\"per_round\":0,\"no_warmup\":false,\"limit_of\":\"\",\"params\":{}"
        + ",\"future_field\":[1,2]" + extra + "}";
  }

  static String with(String json, String key, String value) {
    // overrides a field (last occurrence wins in Jackson's tree reading)
    return json.substring(0, json.length() - 1) + ",\"" + key + "\":" + value + "}";
  }

  @Test
  void hello() throws Exception {
    Run r = main("hello", "--protocol", "1");
    assertEquals(0, r.code());
    assertEquals(2, r.lines().size());
    JsonNode h = r.lines().get(0);
    assertEquals("hello", h.get("type").asText());
    assertEquals(1, h.get("protocol").asInt());
    assertEquals("jvm", h.get("runner").asText());
    assertEquals("java", h.get("language").asText());
    assertEquals("thread", h.get("alloc").asText());
    assertTrue(h.get("vm_flags").isArray());
    assertTrue(h.get("subjects").size() >= 10);
    for (JsonNode s : h.get("subjects")) {
      assertFalse(s.get("version").asText().isEmpty());
      assertFalse(s.get("version").asText().equals("unknown"), s.get("name").asText());
      assertTrue(s.get("library").asText().contains(":"));
      assertEquals("none", s.get("codecs").get(0).asText());
    }
    assertEquals("end", r.lines().get(1).get("type").asText());
  }

  @Test
  void protocolMismatch() throws Exception {
    Run r = main("hello", "--protocol", "2");
    assertEquals(2, r.code());
    assertEquals("hello", r.lines().get(0).get("type").asText());
    assertEquals(1, r.lines().get(0).get("protocol").asInt());
    JsonNode e = r.lines().get(1);
    assertEquals("error", e.get("type").asText());
    assertEquals("protocol 2 requested, this runner speaks 1", e.get("message").asText());
    assertFalse(e.has("case"));
  }

  @Test
  void usage() throws Exception {
    assertEquals(2, main("frobnicate").code());
    assertEquals(2, main("run", "--protocol", "1", "--bogus", "x").code());
  }

  @Test
  void unreadableWork() throws Exception {
    Run r = main("run", "--protocol", "1", "--work", work.resolve("missing").toString());
    assertEquals(1, r.code());
    assertEquals("error", r.lines().get(1).get("type").asText());
    assertFalse(r.lines().get(1).has("case"));
    assertEquals("end", r.lines().get(r.lines().size() - 1).get("type").asText());
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
    List<String> cases = new ArrayList<>();
    cases.add(c("r/jackson/decode", "r/decode", "jackson-json", "baseline", "decode", "mixed-40", 3, ""));
    cases.add(c("r/kryo/decode", "r/decode", "kryo", "subject", "decode", "mixed-40", 3, ""));
    cases.add(with(c("r/copy", "r/decode", "copy", "limit", "copy", "mixed-40", 3, ""), "limit_of", "\"r/jackson/decode\""));
    cases.add(with(c("r/avro/encode/zstd", "", "avro-generic", "subject", "encode", "mixed-40", 0, ""), "codec", "\"zstd:3\""));
    cases.add(with(with(c("r/smile/query", "q", "jackson-smile", "subject", "query", "mixed-40", 2, ""),
        "query", "\"id,attrs.b\""), "per_round", "2"));
    cases.add(c("r/nope", "bad", "nope", "subject", "decode", "mixed-40", 1, ""));
    cases.add(with(c("r/params", "bad", "kryo", "subject", "decode", "mixed-40", 1, ""), "params", "{\"reuse\":\"true\"}"));
    cases.add(with(c("r/codec", "bad", "kryo", "subject", "decode", "mixed-40", 1, ""), "codec", "\"brotli:99\""));
    cases.add(c("r/arrow/decode", "", "arrow-ipc", "subject", "decode", "mixed-40", 1, ""));
    cases.add(with(c("r/nowarm", "", "msgpack-java", "subject", "decode", "mixed-40", 2, ""), "no_warmup", "true"));
    Files.write(work.resolve("cases.jsonl"), cases);

    Run r = main("run", "--protocol", "1", "--work", work.toString());
    assertEquals(0, r.code(), r.stderr());
    List<JsonNode> ls = r.lines();
    assertEquals("hello", ls.get(0).get("type").asText());
    JsonNode end = ls.get(ls.size() - 1);
    assertEquals("end", end.get("type").asText());
    assertEquals(10, end.get("cases").asInt());
    assertEquals(3, end.get("failed").asInt());
    assertEquals(1, r.of("hello").size());
    assertEquals(1, r.of("end").size());

    // verify lines carry the digest of the source rows
    for (String id : List.of("r/jackson/decode", "r/kryo/decode", "r/avro/encode/zstd", "r/arrow/decode", "r/nowarm")) {
      List<JsonNode> v = r.of("verify", id);
      assertEquals(1, v.size(), id);
      assertTrue(v.get(0).get("ok").asBoolean(), id);
      JsonNode d = v.get(0).get("digest");
      assertEquals(40, d.get("rows").asInt());
      assertEquals(want.table(), d.get("table").asText(), id);
      assertEquals(want.columns().size(), d.get("columns").size());
      for (JsonNode col : d.get("columns")) {
        assertEquals(want.column(col.get("path").asText()), col.get("digest").asText(), id + " " + col.get("path"));
      }
      assertTrue(v.get(0).get("encoded_bytes").asLong() > 0);
    }
    // query: only the projected columns
    JsonNode qv = r.of("verify", "r/smile/query").get(0);
    assertTrue(qv.get("ok").asBoolean());
    assertEquals(2, qv.get("digest").get("columns").size());
    assertEquals(want.column("attrs.b"), qv.get("digest").get("columns").get(1).get("digest").asText());
    // copy: digest null, same length as its source
    JsonNode cv = r.of("verify", "r/copy").get(0);
    assertTrue(cv.get("ok").asBoolean());
    assertTrue(cv.get("digest").isNull());
    assertEquals(r.of("verify", "r/jackson/decode").get(0).get("encoded_bytes").asLong(), cv.get("encoded_bytes").asLong());

    // setup errors
    for (String id : List.of("r/nope", "r/params", "r/codec")) {
      List<JsonNode> e = r.of("error", id);
      assertEquals(1, e.size(), id);
      assertEquals("setup", e.get(0).get("phase").asText());
      assertTrue(r.of("verify", id).isEmpty());
    }
    assertTrue(r.of("error", "r/nope").get(0).get("message").asText().contains("unknown subject"));
    assertTrue(r.of("error", "r/params").get(0).get("message").asText().contains("reuse"));

    // samples: counts, fields, the interleaving of §4.3 / §9
    Map<String, Integer> counts = new HashMap<>();
    List<String> group = new ArrayList<>();
    for (JsonNode s : r.of("sample")) {
      String id = s.get("case").asText();
      counts.merge(id, 1, Integer::sum);
      assertTrue(s.get("iters").asLong() >= 1);
      assertTrue(s.get("ns_per_op").asDouble() > 0);
      assertTrue(s.get("bytes_per_op").asLong() > 0);
      assertNotNull(s.get("alloc_bytes_per_op"));
      assertTrue(s.get("allocs_per_op").isNull());
      if (id.startsWith("r/jackson") || id.startsWith("r/kryo") || id.equals("r/copy")) {
        group.add(s.get("round").asInt() + ":" + s.get("order").asInt() + ":" + id);
      }
    }
    assertEquals(3, counts.get("r/jackson/decode"));
    assertEquals(3, counts.get("r/kryo/decode"));
    assertEquals(3, counts.get("r/copy"));
    assertEquals(2, counts.get("r/avro/encode/zstd")); // count 0: run.json's count
    assertEquals(2, counts.get("r/smile/query"));
    assertEquals(1, counts.get("r/arrow/decode"));
    assertEquals(2, counts.get("r/nowarm"));
    assertEquals(List.of(
        "1:0:r/jackson/decode", "1:1:r/kryo/decode", "1:2:r/copy",
        "2:0:r/kryo/decode", "2:1:r/copy", "2:2:r/jackson/decode",
        "3:0:r/copy", "3:1:r/jackson/decode", "3:2:r/kryo/decode"), group);
    // per_round 2: both samples in round 1, order 0
    for (JsonNode s : r.of("sample", "r/smile/query")) {
      assertEquals(1, s.get("round").asInt());
      assertEquals(0, s.get("order").asInt());
    }
    // copy iterations dominate: a copy of a few KB is far faster than a decode
    double copyNs = r.of("sample", "r/copy").get(0).get("ns_per_op").asDouble();
    double decNs = r.of("sample", "r/jackson/decode").get(0).get("ns_per_op").asDouble();
    assertTrue(copyNs < decNs, copyNs + " vs " + decNs);

    // every case's verify precedes its samples
    Map<String, Integer> verifiedAt = new HashMap<>();
    for (int i = 0; i < ls.size(); i++) {
      JsonNode l = ls.get(i);
      if (l.get("type").asText().equals("verify")) {
        verifiedAt.put(l.get("case").asText(), i);
      } else if (l.get("type").asText().equals("sample")) {
        Integer v = verifiedAt.get(l.get("case").asText());
        assertNotNull(v);
        assertTrue(v < i);
      }
    }
  }

  @Test
  void budget() throws Exception {
    Dataset ds = SampleData.media(30, 7);
    Path dir = work.resolve("datasets").resolve("media-30");
    Files.createDirectories(dir);
    try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
      ArrowFiles.writeStream(ds.schema(), ds.rows(), 1000, o);
    }
    Files.writeString(work.resolve("run.json"),
        "{\"protocol\":1,\"benchtime_ns\":1000000,\"max_iters\":1000000000,\"count\":5,\"seed\":1}");
    // a budget of 1 ns: min_count samples only
    Files.write(work.resolve("cases.jsonl"), List.of(
        with(with(c("b/json", "", "jackson-json", "subject", "encode", "media-30", 50, ""), "budget_ns", "1"), "min_count", "3"),
        with(c("b/json2", "", "jackson-json", "subject", "encode", "media-30", 2, ""), "max_iters_unknown", "5")));
    Run r = main("run", "--protocol", "1", "--work", work.toString());
    assertEquals(0, r.code(), r.stderr());
    assertEquals(3, r.of("sample", "b/json").size());
    assertEquals(2, r.of("sample", "b/json2").size());
  }
}
