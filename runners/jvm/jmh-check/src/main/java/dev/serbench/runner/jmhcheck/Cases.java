package dev.serbench.runner.jmhcheck;

import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.ArrowRows;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.kit.Subject;
import dev.serbench.runner.subjects.Subjects;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;

/** The three checked cases, set up as the runner's Runner.setup does (codec none). */
public final class Cases {
  /** name, subject, op, media rows. */
  public static final List<String[]> ALL = List.of(
      new String[] {"small-decode", "jackson-json", "decode", "10"},
      new String[] {"large-decode", "jackson-json", "decode", "20000"},
      new String[] {"file-write", "parquet", "encode", "20000"});

  private Cases() {}

  public static Dataset dataset(int rows) throws Exception {
    Dataset d = SampleData.media(rows, 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ArrowFiles.writeStream(d.schema(), d.rows(), 4096, out);
    return ArrowRows.read("media-" + rows, new ByteArrayInputStream(out.toByteArray()));
  }

  /** A bound case: the op as the runner's timed loop calls it. */
  public static final class Bound {
    public final Subject.Bound bound;
    public final Object natives;
    public final byte[] encoded;
    public final boolean encode;

    public Bound(String subject, String op, int rows) throws Exception {
      Dataset ds = dataset(rows);
      Subject s = Subjects.all().get(subject);
      bound = s.bind(ds, null);
      Object n = bound.prepare(ds.rows());
      encoded = bound.encode(n);
      encode = op.equals("encode");
      natives = encode ? n : null;
    }

    public Object op() throws Exception {
      return encode ? bound.encode(natives) : bound.decodeTimed(encoded);
    }
  }
}
