package dev.serbench.runner.subjects;

import dev.serbench.runner.kit.GenericSubject;
import java.util.List;
import java.util.Map;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;

/**
 * Apache Fory (Java mode, class registration required, reference tracking off): the rows as one
 * {@code ArrayList} of {@code LinkedHashMap}, with Fory's built-in collection serializers.
 */
public final class ForySubject extends GenericSubject {
  private final Fory fory;

  public ForySubject() {
    super("fory", "fory", "org.apache.fory:fory-core",
        labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
            "model", "java.util.Map/List (JIT serializers for JDK collections)"));
    fory = Fory.builder()
        .withLanguage(Language.JAVA)
        .requireClassRegistration(true)
        .withRefTracking(false)
        .build();
  }

  @Override
  public byte[] encode(List<Map<String, Object>> rows) {
    return fory.serialize(rows);
  }

  @Override
  public List<?> decode(byte[] bytes) {
    return (List<?>) fory.deserialize(bytes);
  }
}
