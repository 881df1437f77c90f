package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import clojure.lang.Keyword;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.subjects.EdnSubject;
import dev.serbench.runner.subjects.Subjects;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** EDN with column names no keyword can hold (a space read back as two forms). */
class EdnNamesTest {
  @TempDir
  Path tmp;

  @Test
  void keys() {
    for (String k : new String[] {"plain", "snake_case", "kebab-case", "a.b", "ok?", "+", "-"}) {
      assertInstanceOf(Keyword.class, EdnSubject.key(k), k);
    }
    for (String k : new String[] {"US Gross", "1st", "quote\"d", "-1x", "+2", "a/b", "Zoë", "a,b", ""}) {
      assertEquals(k, EdnSubject.key(k), k);
    }
  }

  @Test
  void awkwardNamesRoundTrip() throws Exception {
    Dataset ds = SubjectRoundTripTest.viaArrow(SampleData.awkwardNames(50));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    SubjectRoundTripTest.assertSame(want,
        SubjectRoundTripTest.roundTrip(Subjects.all().get("edn"), ds, Codec.NONE, tmp), "edn");
  }

  @Test
  void binaryCannotHold() throws Exception {
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(
        java.util.List.of(org.apache.arrow.vector.types.pojo.Field.nullable("blob",
            org.apache.arrow.vector.types.pojo.ArrowType.Binary.INSTANCE)));
    Dataset ds = new Dataset("blobs", schema, java.util.List.of());
    dev.serbench.runner.kit.CannotHold e = org.junit.jupiter.api.Assertions.assertThrows(
        dev.serbench.runner.kit.CannotHold.class, () -> Subjects.all().get("edn").bind(ds, tmp));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("column blob is binary"), e.getMessage());
  }
}
