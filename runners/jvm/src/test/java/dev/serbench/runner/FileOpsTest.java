package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.subjects.ParallelSubject;
import dev.serbench.runner.subjects.ProtobufSubject;
import dev.serbench.runner.kit.Subject;
import dev.serbench.runner.subjects.Subjects;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

  static final Set<String> FILE_FORMATS =
      Set.of("json", "msgpack", "cbor", "avro", "parquet", "arrow-ipc-stream", "protobuf");

  /** The subjects with file ops that bind to any schema (protobuf-java: {@link #protobufFiles}). */
  static Stream<String> fileSubjects() {
    return Subjects.all().values().stream().filter(s -> s.ops().contains("export") && s.anySchema()).map(Subject::name);
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

  static final List<Message> NESTED = List.of(serbench.nested.tpch.Tpch.LineItem.getDefaultInstance(),
      serbench.nested.media.MediaOuterClass.Record.getDefaultInstance(),
      serbench.nested.userevents.Userevents.Record.getDefaultInstance());

  /**
   * protobuf-java's file on the three nested datasets' shapes: encode's bytes (size varint, message),
   * read back by parseDelimitedFrom too, and imported by a fresh binding (the enum strings from the
   * dataset) to the dataset's digest; an empty file is zero rows, a truncated one fails.
   */
  @Test
  void protobufFiles() throws Exception {
    Subject s = new ProtobufSubject();
    for (Message proto : NESTED) {
      String name = proto.getDescriptorForType().getFullName();
      Dataset ds = ProtobufTest.shaped(proto, 120);
      Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
      Path f = export(s, ds, tmp.resolve(name + ".binpb"));
      byte[] bytes = Files.readAllBytes(f);
      try (Subject.Bound b = s.bind(ds, tmp)) {
        assertArrayEquals(b.encode(b.prepare(ds.rows())), bytes, name);
      }
      int n = 0;
      try (InputStream in = new ByteArrayInputStream(bytes)) {
        while (proto.getParserForType().parseDelimitedFrom(in) != null) {
          n++;
        }
      }
      assertEquals(ds.size(), n, name);
      SubjectRoundTripTest.assertSame(want, importDigest(s, ds, f), name);

      Path empty = Files.write(tmp.resolve(name + ".empty.binpb"), new byte[0]);
      try (Subject.Bound b = s.bind(ds, tmp)) {
        assertEquals(0, b.fileRows(b.readFile(empty)).size(), name);
        Path cut = Files.write(tmp.resolve(name + ".cut.binpb"), Arrays.copyOf(bytes, bytes.length - 1));
        Exception e = assertThrows(Exception.class, () -> b.readFile(cut), name);
        assertFalse(Out.oneLine(e).contains("\n"), Out.oneLine(e));
      }
    }
  }

  /** protobuf file cases through Main: export, import, and ok:false for a truncated, empty or garbage file. */
  @Test
  void runProtobufFileCases() throws Exception {
    Dataset ds = ProtobufTest.shaped(serbench.nested.userevents.Userevents.Record.getDefaultInstance(), 40);
    Path dir = tmp.resolve("datasets").resolve("ue-40");
    Files.createDirectories(dir);
    Files.createDirectories(tmp.resolve("tmp"));
    try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
      ArrowFiles.writeStream(ds.schema(), ds.rows(), 15, o);
    }
    byte[] good = Files.readAllBytes(export(new ProtobufSubject(), ds, tmp.resolve("good.binpb")));
    Files.write(tmp.resolve("tmp/b.binpb"), good);
    Files.write(tmp.resolve("tmp/cut.binpb"), Arrays.copyOf(good, good.length - 7));
    Files.write(tmp.resolve("tmp/empty.binpb"), new byte[0]);
    Files.write(tmp.resolve("tmp/junk.binpb"), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 1, 2});
    Files.writeString(tmp.resolve("run.json"),
        "{\"protocol\":1,\"run_id\":\"t\",\"benchtime_ns\":2000000,\"max_iters\":1000000000,\"count\":2,\"seed\":1}");
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    List<String> cases = new ArrayList<>();
    cases.add(pc("x/pb", "export", "tmp/a.binpb"));
    cases.add(pc("i/pb", "import", "tmp/b.binpb"));
    cases.add(pc("i/cut", "import", "tmp/cut.binpb"));
    cases.add(pc("i/empty", "import", "tmp/empty.binpb"));
    cases.add(pc("i/junk", "import", "tmp/junk.binpb"));
    Files.write(tmp.resolve("cases.jsonl"), cases);

    MainTest.Run r = MainTest.main("run", "--protocol", "1", "--work", tmp.toString());
    assertEquals(0, r.code(), r.stderr());
    assertTrue(r.of("sample").isEmpty());
    JsonNode hello = r.lines().get(0);
    for (JsonNode s : hello.get("subjects")) {
      if (s.get("name").asText().equals("protobuf-java")) {
        assertTrue(s.get("ops").toString().contains("\"export\"") && s.get("ops").toString().contains("\"import\""), s.toString());
      }
    }
    for (String id : List.of("x/pb", "i/pb")) {
      JsonNode v = r.of("verify", id).get(0);
      assertTrue(v.get("ok").asBoolean(), id + ": " + v);
      assertEquals(want.table(), v.get("digest").get("table").asText(), id);
      assertEquals(good.length, v.get("encoded_bytes").asLong(), id);
      assertTrue(v.has("elapsed_ns"), id);
    }
    assertArrayEquals(good, Files.readAllBytes(tmp.resolve("tmp/a.binpb")));
    for (String id : List.of("i/cut", "i/empty", "i/junk")) {
      JsonNode v = r.of("verify", id).get(0);
      assertFalse(v.get("ok").asBoolean(), id);
      assertTrue(v.get("reason").asText().startsWith("import (read) failed: "), v.toString());
      assertFalse(v.get("reason").asText().contains("\n"), id);
    }
    assertTrue(r.of("verify", "i/empty").get(0).get("reason").asText().contains("read 0 rows, want 40"));
    assertEquals(3, r.lines().get(r.lines().size() - 1).get("failed").asInt());
  }

  static String pc(String id, String op, String path) {
    return MainTest.with(MainTest.c(id, "", "protobuf-java", "subject", op, "ue-40", 0, ""), "path", "\"" + path + "\"");
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
