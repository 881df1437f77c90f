package dev.serbench.runner.subjects;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import clojure.lang.PersistentVector;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.digest.Nav;
import dev.serbench.runner.kit.CannotHold;
import dev.serbench.runner.kit.Kit;
import dev.serbench.runner.kit.Projection;
import dev.serbench.runner.kit.Subject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * EDN through Clojure: the native objects are Clojure persistent data (a vector of maps with
 * keyword keys — string keys for names no keyword can hold, as {@code "US Gross"} — vectors for lists, Long for integers, Double/Float, String, BigDecimal); encode is
 * {@code pr-str} of the vector then UTF-8, decode UTF-8 then {@code clojure.edn/read-string}.
 * Binary values have no EDN form ({@code pr-str} prints {@code #object[...]}): bind refuses a
 * binary column as {@link CannotHold}.
 */
public final class EdnSubject implements Subject {
  private static IFn prStr;
  private static IFn readString;

  static synchronized void init() {
    if (prStr == null) {
      IFn require = Clojure.var("clojure.core", "require");
      require.invoke(Clojure.read("clojure.edn"));
      prStr = Clojure.var("clojure.core", "pr-str");
      readString = Clojure.var("clojure.edn", "read-string");
    }
  }

  @Override
  public String name() {
    return "edn";
  }

  @Override
  public String format() {
    return "edn";
  }

  @Override
  public String library() {
    return "org.clojure:clojure";
  }

  @Override
  public List<String> ops() {
    return List.of("encode", "decode", "query");
  }

  @Override
  public Map<String, String> labels() {
    return Kit.labels("codegen", "no", "reuse", "no", "zero_copy", "no", "time_precision", "us",
        "model", "Clojure persistent maps (keyword keys; string keys for names that are no EDN"
            + " keyword) and vectors");
  }

  /**
   * The names EDN can write as a keyword: a symbol's characters, not starting with a digit (nor
   * a sign before one, which reads as a number), no namespace slash.
   */
  private static final Pattern KEYWORD =
      Pattern.compile("[A-Za-z*!_?<>=+\\-][A-Za-z0-9*!_?<>=+\\-.]*");

  private static final ConcurrentHashMap<String, Object> KEYS = new ConcurrentHashMap<>();

  /**
   * The map key of a field: its keyword, or the name as a string where it is no EDN keyword (a
   * space, a quote, a leading digit): {@code :US Gross} would read back as two forms.
   */
  public static Object key(String name) {
    return KEYS.computeIfAbsent(name, n -> {
      boolean signedDigit = n.length() > 1 && (n.charAt(0) == '+' || n.charAt(0) == '-')
          && Character.isDigit(n.charAt(1));
      return KEYWORD.matcher(n).matches() && !signedDigit ? Keyword.intern(n) : n;
    });
  }

  /** A generic value as Clojure data. */
  static Object toClojure(Object v) {
    if (v instanceof Map<?, ?> m) {
      Object[] kvs = new Object[m.size() * 2];
      int i = 0;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        kvs[i++] = key((String) e.getKey());
        kvs[i++] = toClojure(e.getValue());
      }
      return kvs.length <= 16 ? new PersistentArrayMap(kvs) : PersistentHashMap.create(kvs);
    }
    if (v instanceof List<?> xs) {
      List<Object> out = new ArrayList<>(xs.size());
      for (Object x : xs) {
        out.add(toClojure(x));
      }
      return PersistentVector.create(out);
    }
    if (v instanceof Integer i) {
      return (long) i;
    }
    return v;
  }

  /** The path of the first binary field at or under f, or null. */
  static String binaryPath(Field f, String path) {
    switch (f.getType().getTypeID()) {
      case Binary, LargeBinary, BinaryView, FixedSizeBinary:
        return path;
      default:
        for (Field c : f.getChildren()) {
          String p = binaryPath(c, path + "." + c.getName());
          if (p != null) {
            return p;
          }
        }
        return null;
    }
  }

  static final Nav NAV = new Nav() {
    @Override
    public Object field(Object s, String name, int idx) {
      return ((Map<?, ?>) s).get(key(name));
    }
  };

  @Override
  public Bound bind(Dataset ds, Path tmp) {
    for (Field f : ds.schema().getFields()) {
      String binary = binaryPath(f, f.getName());
      if (binary != null) {
        throw new CannotHold("edn: column " + binary + " is binary: EDN has no form for bytes (pr-str"
            + " prints #object[...], which reads back as no value)");
      }
    }
    init();
    return new Bound() {
      @Override
      public Object prepare(List<Map<String, Object>> rows) {
        return toClojure(rows);
      }

      @Override
      public byte[] encode(Object natives) {
        return ((String) prStr.invoke(natives)).getBytes(StandardCharsets.UTF_8);
      }

      @Override
      public Object decode(byte[] bytes) {
        return readString.invoke(new String(bytes, StandardCharsets.UTF_8));
      }

      @Override
      public Object query(byte[] bytes, Projection p) {
        return decode(bytes);
      }

      @Override
      public List<?> rows(Object decoded) {
        return (List<?>) decoded;
      }

      @Override
      public Nav nav() {
        return NAV;
      }
    };
  }
}
