package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.subjects.ParallelSubject;
import dev.serbench.runner.subjects.Subject;
import dev.serbench.runner.subjects.Subjects;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The file ops (protocol §10): each subject announcing export writes its format's file and reads
 * it back to the dataset's digest; the files have the framing §10 names; and through Main, export
 * and import cases get one verify line each and no samples.
 */
class FileOpsTest {
  @TempDir
  Path tmp;

  static final Set<String> FILE_FORMATS = Set.of("json", "msgpack", "cbor", "avro", "parquet", "arrow-ipc-stream");

  static Stream<String> fileSubjects() {
    return Subjects.all().values().stream().filter(s -> s.ops().contains("export")).map(Subject::name);
  }

  @Test
  void announced() {
    for (Subject s : Subjects.all().values()) {
      // A -par subject is its base's reader in batches: no file of its own.
      boolean shared = FILE_FORMATS.contains(s.format()) && !(s instanceof ParallelSubject);
      assertEquals(shared, s.ops().contains("export"), s.name());
      assertEquals(shared, s.ops().contains("import"), s.name());
    }
  }

  static Path export(Subject s, Dataset ds, Path file) throws Exception {
    try (Subject.Bound b = s.bind(ds, file.getParent())) {
      b.writeFile(b.prepare(ds.rows()), file);
    }
    return file;
  }

  static Digest.Result importDigest(Subject s, Dataset ds, Path file) throws Exception {
    try (Subject.Bound b = s.bind(ds, file.getParent())) {
      List<?> rows = b.fileRows(b.readFile(file));
      assertEquals(ds.size(), rows.size(), s.name() + ": rows");
      return Digest.digest(ds.schema(), rows, b.fileNav(), null);
    }
  }

  @ParameterizedTest
  @MethodSource("fileSubjects")
  void exportReadsBack(String name) throws Exception {
    Dataset ds = SubjectRoundTripTest.viaArrow(SampleData.mixed(50, 3));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    Subject s = Subjects.all().get(name);
    Path f = export(s, ds, tmp.resolve(name + ".file"));
    SubjectRoundTripTest.assertSame(want, importDigest(s, ds, f), name);
  }

  @Test
  void framing() throws Exception {
    Dataset ds = SubjectRoundTripTest.viaArrow(SampleData.mixed(20, 5));
    Map<String, Subject> all = Subjects.all();
    List<String> lines = Files.readAllLines(export(all.get("jackson-json"), ds, tmp.resolve("a.jsonl")));
    assertEquals(20, lines.size());
    for (String l : lines) {
      assertTrue(l.startsWith("{") && l.endsWith("}"), l);
    }
    // RFC 3339 timestamps, ISO dates
    assertTrue(lines.get(0).matches(".*\"ts\":(null|\"\\d{4}-\\d\\d-\\d\\dT[^\"]*Z\").*"), lines.get(0));
    byte[] ipc = Files.readAllBytes(export(all.get("arrow-ipc"), ds, tmp.resolve("a.arrow")));
    assertEquals("ARROW1", new String(ipc, 0, 6, StandardCharsets.US_ASCII));
    byte[] avro = Files.readAllBytes(export(all.get("avro-generic"), ds, tmp.resolve("a.avro")));
    assertEquals("Obj", new String(avro, 0, 3, StandardCharsets.US_ASCII));
    byte[] pq = Files.readAllBytes(export(all.get("parquet"), ds, tmp.resolve("a.parquet")));
    assertEquals("PAR1", new String(pq, pq.length - 4, 4, StandardCharsets.US_ASCII));
    // MessagePack: 20 maps back to back
    try (org.msgpack.core.MessageUnpacker u = org.msgpack.core.MessagePack.newDefaultUnpacker(
        Files.readAllBytes(export(all.get("msgpack-java"), ds, tmp.resolve("a.msgpack"))))) {
      int n = 0;
      while (u.hasNext()) {
        assertEquals(ds.schema().getFields().size(), u.unpackMapHeader());
        for (int i = 0; i < ds.schema().getFields().size() * 2; i++) {
          u.skipValue();
        }
        n++;
      }
      assertEquals(20, n);
    }
  }

  @Test
  void runFileCases() throws Exception {
    Dataset ds = SampleData.mixed(40, 7);
    Path dir = tmp.resolve("datasets").resolve("mixed-40");
    Files.createDirectories(dir);
    Files.createDirectories(tmp.resolve("tmp"));
    try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
      ArrowFiles.writeStream(ds.schema(), ds.rows(), 15, o);
    }
    Files.writeString(tmp.resolve("run.json"),
        "{\"protocol\":1,\"run_id\":\"t\",\"benchtime_ns\":2000000,\"max_iters\":1000000000,\"count\":2,\"seed\":1}");
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    List<String> cases = new ArrayList<>();
    cases.add(fc("x/json", "jackson-json", "export", "tmp/a.jsonl"));
    cases.add(fc("x/avro", "avro-generic", "export", "tmp/a.avro"));
    cases.add(fc("i/avro", "avro-generic", "import", "tmp/a.avro"));
    cases.add(fc("i/json", "jackson-json", "import", "tmp/a.jsonl"));
    cases.add(fc("i/missing", "parquet", "import", "tmp/none.parquet"));
    cases.add(fc("i/refused", "parquet", "import", "tmp/a.jsonl"));
    cases.add(fc("i/outside", "parquet", "import", "../run.json"));
    cases.add(fc("i/kryo", "kryo", "export", "tmp/k"));
    cases.add(fc("i/nopath", "parquet", "import", ""));
    Files.write(tmp.resolve("cases.jsonl"), cases);

    MainTest.Run r = MainTest.main("run", "--protocol", "1", "--work", tmp.toString());
    assertEquals(0, r.code(), r.stderr());
    assertTrue(r.of("sample").isEmpty());
    for (String id : List.of("x/json", "x/avro", "i/avro", "i/json")) {
      List<JsonNode> v = r.of("verify", id);
      assertEquals(1, v.size(), id);
      assertTrue(v.get(0).get("ok").asBoolean(), id + ": " + v.get(0));
      assertEquals(want.table(), v.get(0).get("digest").get("table").asText(), id);
    }
    assertEquals(Files.size(tmp.resolve("tmp/a.avro")), r.of("verify", "x/avro").get(0).get("encoded_bytes").asLong());
    for (String id : List.of("i/missing", "i/refused")) {
      JsonNode v = r.of("verify", id).get(0);
      assertFalse(v.get("ok").asBoolean(), id);
      assertFalse(v.get("reason").asText().contains("\n"), id);
    }
    for (String id : List.of("i/outside", "i/kryo", "i/nopath")) {
      List<JsonNode> e = r.of("error", id);
      assertEquals(1, e.size(), id);
      assertEquals("setup", e.get(0).get("phase").asText(), id);
    }
    JsonNode end = r.lines().get(r.lines().size() - 1);
    assertEquals(9, end.get("cases").asInt());
    assertEquals(5, end.get("failed").asInt());
  }

  @Test
  void navThroughSchema() {
    // another language's values, read through the dataset's schema (§10.3)
    org.apache.arrow.vector.types.pojo.ArrowType ms =
        new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MILLISECOND, "UTC");
    org.apache.arrow.vector.types.pojo.ArrowType ns =
        new org.apache.arrow.vector.types.pojo.ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, "UTC");
    org.apache.arrow.vector.types.pojo.ArrowType day =
        new org.apache.arrow.vector.types.pojo.ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY);
    Nav nav = dev.serbench.runner.subjects.FileValues.NAV;
    assertEquals(1_700_000_000_123_000L, nav.leaf(1_700_000_000_123L, ms));
    assertEquals(-2L, nav.leaf(-1001L, ns)); // floor, as §7.3
    assertEquals(java.time.Instant.parse("2024-05-17T12:30:45.123456Z"), nav.leaf("2024-05-17T12:30:45.123456+00:00", ms));
    assertEquals(java.time.LocalDate.of(2022, 1, 8), nav.leaf("2022-01-08", day));
    assertEquals(19000, nav.leaf(19000, day));
    byte[] b = (byte[]) dev.serbench.runner.subjects.FileValues.JSON_NAV.leaf("AAH/",
        org.apache.arrow.vector.types.pojo.ArrowType.Binary.INSTANCE);
    assertEquals(3, b.length);
  }

  static String fc(String id, String subject, String op, String path) {
    return MainTest.with(MainTest.c(id, "", subject, "subject", op, "mixed-40", 0, ""), "path", "\"" + path + "\"");
  }
}
