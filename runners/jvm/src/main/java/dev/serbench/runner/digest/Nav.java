package dev.serbench.runner.digest;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * How the digest reads a subject's decoded native objects: a struct's field, a list's elements,
 * and an optional rewrite of a leaf value before its canonical encoding (e.g. base64 text back to
 * bytes for a binary column in JSON). The default reads {@code java.util.Map} by field name,
 * {@code Object[]} by position and {@code java.util.List}/{@code Object[]} as lists.
 */
public interface Nav {
  Nav DEFAULT = new Nav() {};

  /** Field {@code idx} (named {@code name}) of struct value {@code s}; null when null. */
  default Object field(Object s, String name, int idx) {
    if (s instanceof Map<?, ?> m) {
      return m.get(name);
    }
    if (s instanceof Object[] a) {
      return a[idx];
    }
    throw new IllegalArgumentException(
        "struct field " + name + ": cannot read a " + s.getClass().getName() + " as a struct");
  }

  /** The elements of list value {@code l}. */
  default List<?> list(Object l) {
    if (l instanceof List<?> xs) {
      return xs;
    }
    if (l instanceof Object[] a) {
      return Arrays.asList(a);
    }
    throw new IllegalArgumentException("cannot read a " + l.getClass().getName() + " as a list");
  }

  /** Rewrites a non-null leaf value of Arrow type {@code t} before its canonical encoding. */
  default Object leaf(Object v, ArrowType t) {
    return v;
  }
}
