package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.digest.Digest;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.subjects.ProtobufSubject;
import dev.serbench.runner.kit.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** protobuf-java on datasets in the shape of the three nested datasets. */
class ProtobufTest {
  static Dataset shaped(Message proto, int n) throws Exception {
    List<Map<String, Object>> rows = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(9);
    for (int i = 0; i < n; i++) {
      rows.add(ProtobufSubject.sampleRow(proto.getDescriptorForType(), r, 0));
    }
    Dataset d = new Dataset(proto.getDescriptorForType().getFullName(), ProtobufSubject.arrowSchema(proto.getDescriptorForType()), rows);
    return SubjectRoundTripTest.viaArrow(d);
  }

  @Test
  void threeNestedDatasets() throws Exception {
    Subject s = new ProtobufSubject();
    for (Message m : List.of(serbench.nested.tpch.Tpch.LineItem.getDefaultInstance(),
        serbench.nested.media.MediaOuterClass.Record.getDefaultInstance(),
        serbench.nested.userevents.Userevents.Record.getDefaultInstance())) {
      Dataset ds = shaped(m, 150);
      Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
      Digest.Result got = SubjectRoundTripTest.roundTrip(s, ds, Codec.NONE, null);
      SubjectRoundTripTest.assertSame(want, got, m.getDescriptorForType().getFullName());
    }
  }

  @Test
  void mediaSample() throws Exception {
    Dataset ds = SubjectRoundTripTest.viaArrow(SampleData.media(200, 5));
    Digest.Result want = Digest.digest(ds.schema(), ds.rows(), Nav.DEFAULT, null);
    SubjectRoundTripTest.assertSame(want, SubjectRoundTripTest.roundTrip(new ProtobufSubject(), ds, Codec.NONE, null), "media");
  }

  @Test
  void otherSchemaFailsAtSetup() throws Exception {
    Dataset ds = SubjectRoundTripTest.viaArrow(SampleData.mixed(10, 5));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ProtobufSubject().bind(ds, null));
    assertTrue(e.getMessage().contains("no generated message matches"), e.getMessage());
  }
}
