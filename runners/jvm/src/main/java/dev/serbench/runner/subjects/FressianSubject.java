package dev.serbench.runner.subjects;

import dev.serbench.runner.kit.GenericSubject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.fressian.FressianReader;
import org.fressian.FressianWriter;

/**
 * Fressian (org.fressian, the Java library under clojure/data.fressian): the rows as one list of
 * maps with string keys, with Fressian's default handlers, read back as Fressian's own
 * {@code java.util.Map}/{@code List}.
 */
public final class FressianSubject extends GenericSubject {
  public FressianSubject() {
    super("fressian", "fressian", "org.fressian:fressian",
        labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
            "model", "java.util.Map/List"));
  }

  @Override
  public byte[] encode(List<Map<String, Object>> rows) throws Exception {
    ByteArrayOutputStream bos = new ByteArrayOutputStream(4096);
    FressianWriter w = new FressianWriter(bos);
    w.writeObject(rows);
    w.close();
    return bos.toByteArray();
  }

  @Override
  public List<?> decode(byte[] bytes) throws Exception {
    FressianReader r = new FressianReader(new ByteArrayInputStream(bytes));
    return (List<?>) r.readObject();
  }
}
