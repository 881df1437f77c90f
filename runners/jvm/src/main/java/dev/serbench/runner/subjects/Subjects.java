package dev.serbench.runner.subjects;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The subjects this runner announces, in hello order. */
public final class Subjects {
  private Subjects() {}

  public static Map<String, Subject> all() {
    List<Subject> l = new ArrayList<>();
    l.add(JacksonSubject.json());
    l.add(JacksonSubject.smile());
    l.add(JacksonSubject.cbor());
    l.add(new MsgpackSubject());
    l.add(new FressianSubject());
    l.add(new EdnSubject());
    l.add(new AvroSubject());
    l.add(new KryoSubject());
    l.add(new ForySubject());
    l.add(new ArrowIpcSubject());
    l.add(new ProtobufSubject());
    l.add(new ParquetSubject());
    Map<String, Subject> m = new LinkedHashMap<>();
    for (Subject s : l) {
      m.put(s.name(), s);
    }
    return m;
  }
}
