package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.ArrowRows;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.kit.Projection;
import dev.serbench.runner.kit.Subject;
import dev.serbench.runner.subjects.Subjects;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SubjectRoundTripTest {
  @TempDir
  Path tmp;

  static Stream<String> subjects() {
    return Subjects.all().keySet().stream();
  }

  /** The subjects that bind to any schema (protobuf-java has its own tests, ProtobufTest). */
  static Stream<String> anySchema() {
    return Subjects.all().values().stream().filter(Subject::anySchema).map(Subject::name);
  }

  /** The dataset as the runner sees it: through an Arrow IPC stream. */
  static Dataset viaArrow(Dataset d) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ArrowFiles.writeStream(d.schema(), d.rows(), 16, out);
    return ArrowRows.read(d.name(), new ByteArrayInputStream(out.toByteArray()));
  }

  static Digest.Result roundTrip(Subject s, Dataset ds, Codec codec, Path tmp) throws Exception {
    try (Subject.Bound b = s.bind(ds, tmp)) {
      Object natives = b.prepare(ds.rows());
      byte[] enc = codec.compress(b.encode(natives));
      Object dec = b.decode(codec.decompress(enc));
      try {
        List<?> rows = b.rows(dec);
        assertEquals(ds.size(), rows.size(), s.name() + ": rows");
        return Digest.digest(ds.schema(), rows, b.nav(), null);
      } finally {
        b.release(dec);
      }
    }
  }

  static void assertSame(Digest.Result want, Digest.Result got, String what) {
    for (Digest.Column c : want.columns()) {
      assertEquals(c.digest(), got.column(c.path()), what + ": column " + c.path());
    }
    assertEquals(want.table(), got.table(), what + ": table");
  }

  /**
   * Known, documented inexactness on the mixed dataset: the columns whose digest differs.
   * Fressian writes -0.0 as its 0.0 code (FressianWriter.writeDouble tests d == 0.0).
   */
  static final java.util.Map<String, java.util.Set<String>> KNOWN = java.util.Map.of(
      "fressian", java.util.Set.of("score"));

  @ParameterizedTest
  @MethodSource("anySchema")
  void mixed(String name) throws Exception {
    Dataset ds = viaArrow(SampleData.mixed(200, 1));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    // the generic rows straight from the generator digest alike
    Dataset gen = SampleData.mixed(200, 1);
    assertSame(want, Digest.digest(gen.schema(), gen.rows(), Nav.DEFAULT, null), "generated");
    Digest.Result got = roundTrip(Subjects.all().get(name), ds, Codec.NONE, tmp);
    // a -par subject is its base in batches: the same inexactness
    java.util.Set<String> known = KNOWN.getOrDefault(name.replaceFirst("-par$", ""), java.util.Set.of());
    for (Digest.Column c : want.columns()) {
      if (known.contains(c.path())) {
        assertTrue(!c.digest().equals(got.column(c.path())), name + ": column " + c.path() + " is now exact: update KNOWN");
      } else {
        assertEquals(c.digest(), got.column(c.path()), name + ": column " + c.path());
      }
    }
    if (known.isEmpty()) {
      assertEquals(want.table(), got.table(), name + ": table");
    }
  }

  @ParameterizedTest
  @MethodSource("subjects")
  void media(String name) throws Exception {
    Dataset ds = viaArrow(SampleData.media(300, 2));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    assertSame(want, roundTrip(Subjects.all().get(name), ds, Codec.NONE, tmp), name);
  }

  @ParameterizedTest
  @MethodSource("anySchema")
  void empty(String name) throws Exception {
    Dataset ds = viaArrow(SampleData.mixed(0, 1));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    assertSame(want, roundTrip(Subjects.all().get(name), ds, Codec.NONE, tmp), name);
  }

  @ParameterizedTest
  @MethodSource("anySchema")
  void query(String name) throws Exception {
    Subject s = Subjects.all().get(name);
    if (!s.ops().contains("query")) {
      return;
    }
    Dataset ds = viaArrow(SampleData.mixed(100, 3));
    Projection p = Projection.parse("id,attrs.inner,items.[].q", ds.schema());
    assertEquals(List.of("id", "attrs.inner.x", "items.[].q.[]"), List.copyOf(p.leaves()));
    Digest.Result want = Digest.digest(p.pruned(), ds.rows(), Nav.DEFAULT, null);
    try (Subject.Bound b = s.bind(ds, tmp)) {
      byte[] enc = b.encode(b.prepare(ds.rows()));
      Object dec = b.query(enc, p);
      try {
        assertSame(want, Digest.digest(p.pruned(), b.rows(dec), b.nav(), null), name + " query");
      } finally {
        b.release(dec);
      }
    }
  }

  @Test
  void codecs() throws Exception {
    Dataset ds = viaArrow(SampleData.media(100, 4));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    Subject s = Subjects.all().get("jackson-json");
    for (String c : Codec.ANNOUNCED) {
      assertSame(want, roundTrip(s, ds, Codec.parse(c), tmp), "jackson-json " + c);
    }
    try (Subject.Bound b = s.bind(ds, tmp)) {
      byte[] plain = b.encode(b.prepare(ds.rows()));
      assertTrue(Codec.parse("zstd:3").compress(plain).length < plain.length);
    }
  }

  @Test
  void badCodecs() {
    for (String c : new String[] {"brotli:12", "gzip:0", "gzip:x", "lz4:3", "zstd:99", "nope"}) {
      try {
        Codec.parse(c);
        throw new AssertionError("codec " + c + " accepted");
      } catch (IllegalArgumentException e) {
        // expected
      }
    }
  }

  /**
   * Decimals wider than a double (30 digits, scale 4) beside floats: every subject of any schema
   * gives them back exactly (Jackson's untyped reader reads a number with a fraction as a double
   * unless told to take BigDecimal: GenericSubject.decodeFor).
   */
  @ParameterizedTest
  @MethodSource("anySchema")
  void wideDecimals(String name) throws Exception {
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        org.apache.arrow.vector.types.pojo.Field.nullable("big", new org.apache.arrow.vector.types.pojo.ArrowType.Decimal(30, 4, 128)),
        org.apache.arrow.vector.types.pojo.Field.nullable("f", new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(
            org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE))));
    List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
    String[] bigs = {"8783705312214681522.2356", "-0.0062", "0.0000", "99999999999999999999999999.9999"};
    for (int i = 0; i < bigs.length; i++) {
      java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
      r.put("big", new java.math.BigDecimal(bigs[i]));
      r.put("f", i == 0 ? 0.1 : -1.2345678901234567e300 / (i + 1));
      rows.add(r);
    }
    Dataset ds = viaArrow(new Dataset("wide", schema, rows));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    assertSame(want, roundTrip(Subjects.all().get(name), ds, Codec.parse("none"), tmp), name);
  }
}
