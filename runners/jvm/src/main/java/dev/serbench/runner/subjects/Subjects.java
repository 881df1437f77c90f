package dev.serbench.runner.subjects;

import dev.serbench.runner.kit.Subject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The subjects this runner announces, in hello order. */
public final class Subjects {
  private Subjects() {}

  public static Map<String, Subject> all() {
    List<Supplier<Subject>> makers = List.of(JacksonSubject::json, JacksonSubject::smile, JacksonSubject::cbor,
        MsgpackSubject::new, FressianSubject::new, EdnSubject::new, AvroSubject::new, KryoSubject::new,
        ForySubject::new, ArrowIpcSubject::new, ProtobufSubject::new, ParquetSubject::new);
    List<Subject> l = new ArrayList<>();
    for (Supplier<Subject> m : makers) {
      l.add(m.get());
    }
    // The seed's -par readers: every row format decoded in batches on a
    // pool of one thread per processor (the columnar formats read
    // columns, not rows).
    int threads = Runtime.getRuntime().availableProcessors();
    for (Supplier<Subject> m : makers) {
      String f = m.get().format();
      if (!f.startsWith("arrow") && !f.equals("parquet")) {
        l.add(new ParallelSubject(m, threads));
      }
    }
    Map<String, Subject> m = new LinkedHashMap<>();
    for (Subject s : l) {
      m.put(s.name(), s);
    }
    return m;
  }
}
