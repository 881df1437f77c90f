package dev.serbench.runner.subjects;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.serbench.runner.kit.GenericSubject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kryo 5 with registration required: the rows as one {@code ArrayList} of {@code LinkedHashMap}
 * (Kryo's CollectionSerializer/MapSerializer, each value written with its registered class id).
 */
public final class KryoSubject extends GenericSubject {
  private final Kryo kryo = new Kryo();

  public KryoSubject() {
    super("kryo", "kryo", "com.esotericsoftware:kryo",
        labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
            "model", "java.util.Map/List (registered classes)"));
    kryo.setRegistrationRequired(true);
    kryo.setReferences(false);
    kryo.register(ArrayList.class);
    kryo.register(LinkedHashMap.class);
    kryo.register(byte[].class);
    kryo.register(BigDecimal.class);
  }

  @Override
  public byte[] encode(List<Map<String, Object>> rows) {
    Output out = new Output(4096, -1);
    kryo.writeObject(out, rows);
    return out.toBytes();
  }

  @Override
  public List<?> decode(byte[] bytes) {
    return kryo.readObject(new Input(bytes), ArrayList.class);
  }
}
