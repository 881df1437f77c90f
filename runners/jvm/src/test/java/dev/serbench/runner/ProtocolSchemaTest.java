package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.serbench.runner.kit.Subject;
import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.subjects.Subjects;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runner against the protocol's JSON Schema (the repository's runner/protocol.schema.json,
 * draft 2020-12): its codecs are the schema's, its hello line and its subjects' labels are valid
 * by it, and a case line the schema accepts is one {@link CaseSpec} reads. The schema is read
 * from the checkout (runners/jvm/../../runner); a copy of the runner outside one (serbench's
 * extracted sources, which it builds with the tests skipped) skips these.
 */
class ProtocolSchemaTest {
  static final ObjectMapper M = new ObjectMapper();

  /** The schema's codecs this runner does not apply, and why; every other one must parse. */
  static final Map<String, String> NOT_IMPLEMENTED =
      Map.of("s2", "no S2 (Snappy's Go extension) library among the runner's dependencies");

  static Path repo;
  static JsonNode schema;

  @BeforeAll
  static void readSchema() throws IOException {
    repo = Path.of(System.getProperty("basedir", ".")).resolve("../..").normalize();
    Path p = repo.resolve("runner/protocol.schema.json");
    Assumptions.assumeTrue(Files.exists(p), "no " + p + ": this runner is not in a serbench checkout");
    schema = M.readTree(p.toFile());
  }

  /**
   * A validator of one of the schema's $defs: the whole document with a root $ref to it, so that
   * its own $refs resolve within it.
   */
  static Schema validator(String def) {
    assertTrue(schema.path("$defs").has(def), "the schema has no $defs/" + def);
    ObjectNode doc = schema.deepCopy();
    doc.put("$ref", "#/$defs/" + def);
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(doc);
  }

  /** Where and why {@code v} breaks the definition; empty when valid. */
  static List<String> errors(Schema s, JsonNode v) {
    List<String> out = new ArrayList<>();
    for (Error e : s.validate(v)) {
      out.add(e.getInstanceLocation() + ": " + e.getMessage());
    }
    return out;
  }

  static void assertValid(Schema s, JsonNode v) {
    List<String> e = errors(s, v);
    assertTrue(e.isEmpty(), e + "\n" + v);
  }

  /** The codec names of the schema's pattern, {@code ^(a|b|…)(:-?[0-9]+)?$}. */
  static List<String> schemaCodecs() {
    String p = schema.path("$defs").path("codec").path("pattern").asText();
    Matcher m = Pattern.compile("\\^\\(([a-z0-9|]+)\\)\\(:-\\?\\[0-9\\]\\+\\)\\?\\$").matcher(p);
    assertTrue(m.matches(), "codec pattern " + p + " is not ^(a|b|…)(:-?[0-9]+)?$");
    return Arrays.asList(m.group(1).split("\\|"));
  }

  /** The lines of {@code hello --protocol 1}, written by Main as the jar writes them. */
  static List<JsonNode> hello() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"hello", "--protocol", "1"}, out,
        new PrintStream(err, true, StandardCharsets.UTF_8), false);
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    List<JsonNode> lines = new ArrayList<>();
    for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!l.isEmpty()) {
        lines.add(M.readTree(l));
      }
    }
    return lines;
  }

  /** The Go side's golden lines: the validator passes every valid one and fails every invalid one. */
  @Test
  void goldenLines() throws IOException {
    Schema line = validator("line");
    Path dir = repo.resolve("runner/testdata/protocol");
    for (String l : Files.readAllLines(dir.resolve("valid.jsonl"))) {
      assertValid(line, M.readTree(l));
    }
    List<String> invalid = Files.readAllLines(dir.resolve("invalid.jsonl"));
    assertFalse(invalid.isEmpty());
    for (String l : invalid) {
      JsonNode g = M.readTree(l);
      assertFalse(errors(line, g.get("line")).isEmpty(), "valid by the schema: " + g.get("why"));
    }
  }

  @Test
  void announcedCodecsMatchTheSchema() throws IOException {
    Schema codec = validator("codec");
    assertFalse(Codec.ANNOUNCED.isEmpty());
    for (String c : Codec.ANNOUNCED) {
      assertValid(codec, M.getNodeFactory().textNode(c));
    }
    JsonNode subjects = hello().get(0).get("subjects");
    assertFalse(subjects.isEmpty());
    for (JsonNode s : subjects) {
      assertFalse(s.get("codecs").isEmpty(), s.get("name") + " announces no codec");
      for (JsonNode c : s.get("codecs")) {
        assertValid(codec, c);
      }
    }
    assertFalse(errors(codec, M.getNodeFactory().textNode("zstd:high")).isEmpty());
  }

  @Test
  void everySchemaCodecParses() throws IOException {
    List<String> names = schemaCodecs();
    assertTrue(names.containsAll(NOT_IMPLEMENTED.keySet()), "NOT_IMPLEMENTED names a codec the schema has not");
    byte[] data = "serbench ".repeat(64).getBytes(StandardCharsets.UTF_8);
    for (String name : names) {
      if (NOT_IMPLEMENTED.containsKey(name)) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Codec.parse(name));
        assertTrue(e.getMessage().contains("unknown codec"), name + ": " + e.getMessage());
        continue;
      }
      Codec c = Codec.parse(name);
      assertArrayEquals(data, c.decompress(c.compress(data)), name);
    }
    for (String spec : Codec.ANNOUNCED) {
      Codec c = Codec.parse(spec);
      assertArrayEquals(data, c.decompress(c.compress(data)), spec);
    }
  }

  @Test
  void helloIsValidByTheSchema() throws IOException {
    List<JsonNode> lines = hello();
    assertEquals(List.of("hello", "end"), lines.stream().map(l -> l.get("type").asText()).toList());
    assertFalse(lines.get(0).get("subjects").isEmpty());
    assertValid(validator("hello"), lines.get(0));
    Schema line = validator("line");
    for (JsonNode l : lines) {
      assertValid(line, l);
    }
  }

  @Test
  void labelsUseTheSchemaValues() throws IOException {
    Schema labels = validator("labels");
    JsonNode defined = schema.path("$defs").path("labels").path("properties");
    List<Map.Entry<String, JsonNode>> all = new ArrayList<>();
    for (Subject s : Subjects.all().values()) {
      all.add(Map.entry(s.name(), M.valueToTree(s.labels())));
    }
    for (JsonNode s : hello().get(0).get("subjects")) {
      all.add(Map.entry(s.get("name").asText(), s.get("labels")));
    }
    int checked = 0;
    for (Map.Entry<String, JsonNode> e : all) {
      List<String> errs = errors(labels, e.getValue());
      assertTrue(errs.isEmpty(), e.getKey() + ": " + errs);
      for (Map.Entry<String, JsonNode> kv : e.getValue().properties()) {
        JsonNode allowed = defined.path(kv.getKey()).path("enum");
        if (allowed.isArray()) {
          boolean found = false;
          for (JsonNode a : allowed) {
            found |= a.equals(kv.getValue());
          }
          assertTrue(found, e.getKey() + ": " + kv.getKey() + "=" + kv.getValue() + ", the schema's: " + allowed);
          checked++;
        }
      }
    }
    assertTrue(checked > 0);
    assertFalse(errors(labels, M.readTree("{\"zero_copy\":\"maybe\"}")).isEmpty());
  }

  /**
   * The golden files hold runner output only; the work files a runner reads are checked on a
   * run.json and case lines as serbench writes them: valid by the schema and read by CaseSpec.
   */
  @Test
  void workFilesAreWhatTheRunnerReads() throws IOException {
    assertValid(validator("run"), M.readTree(
        "{\"protocol\":1,\"run_id\":\"r\",\"benchtime_ns\":1000000,\"max_iters\":1073741824,\"count\":20,\"seed\":1}"));
    Schema caseSchema = validator("case");
    String base = MainTest.c("g/a", "g", "jackson-json", "subject", "decode", "d", 5, ",\"codec\":\"zstd:3\"");
    List<String> cases = List.of(base,
        MainTest.c("g/copy", "g", "copy", "limit", "copy", "d", 5, ",\"limit_of\":\"g/a\""),
        MainTest.c("x", "", "avro", "subject", "export", "d", 0, ",\"path\":\"tmp/x.avro\",\"params\":{\"k\":\"v\"}"));
    for (String l : cases) {
      JsonNode n = M.readTree(l);
      assertValid(caseSchema, n);
      CaseSpec c = CaseSpec.parse(n);
      assertEquals(n.get("id").asText(), c.id());
      assertEquals(n.get("subject").asText(), c.subject());
      assertEquals(n.get("op").asText(), c.op());
      assertEquals(n.get("codec").asText(), c.codec());
      assertEquals(n.get("limit_of").asText(), c.limitOf());
      assertEquals(n.path("path").asText(""), c.path());
    }
    ObjectNode noId = (ObjectNode) M.readTree(base);
    noId.remove("id");
    assertFalse(errors(caseSchema, noId).isEmpty());
    assertThrows(IllegalArgumentException.class, () -> CaseSpec.parse(noId));
  }
}
