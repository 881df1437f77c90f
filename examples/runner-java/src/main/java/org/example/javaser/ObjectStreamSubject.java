package org.example.javaser;

import dev.serbench.runner.kit.GenericSubject;
import dev.serbench.runner.kit.Kit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Map;

/**
 * {@code java.io.ObjectOutputStream}: the rows, as the kit hands them over (a {@code List} of one
 * {@code LinkedHashMap<String,Object>} per row, nested structs as maps and lists as {@code
 * ArrayList}s, values as {@code Long}, {@code Double}, {@code String}, {@code byte[]}, {@code
 * BigDecimal}…), written as one serialized object graph; decode reads the graph back with {@code
 * ObjectInputStream}, accepting only classes of {@code java.base} (a deserialization filter, as
 * any reader of Java serialization should set). The digest reads the decoded maps by field name.
 */
final class ObjectStreamSubject extends GenericSubject {
  /** Only the JDK's own classes: the generic rows hold nothing else. */
  private static final ObjectInputFilter FILTER = ObjectInputFilter.Config.createFilter("java.base/*;!*");

  ObjectStreamSubject() {
    super("object-stream", "java-serialization", "java.base", Runtime.version().toString(),
        Kit.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
            "model", "java.util.List/LinkedHashMap (the kit's generic rows)",
            "framing", "one ObjectOutputStream stream of the row list"));
  }

  @Override
  public byte[] encode(List<Map<String, Object>> rows) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(8192);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(rows);
    }
    return bytes.toByteArray();
  }

  @Override
  public List<?> decode(byte[] bytes) throws Exception {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      in.setObjectInputFilter(FILTER);
      return (List<?>) in.readObject();
    }
  }
}
