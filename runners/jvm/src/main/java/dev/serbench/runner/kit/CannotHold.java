package dev.serbench.runner.kit;

/**
 * Thrown by a subject (from {@code bind}, or a case's first encode) when its format cannot
 * represent the dataset: a type it has no form for, a value out of its range. The case's error
 * line says {@code cannot_hold} and serbench records "cannot hold", not FAILED. The message says in
 * one line which column (and row).
 */
public final class CannotHold extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A format's limit, described in one line. */
  public CannotHold(String message) {
    super(message);
  }

  /** Whether t, or a throwable it was caused by, is a CannotHold. */
  public static boolean in(Throwable t) {
    for (int i = 0; t != null && i < 20; i++, t = t.getCause()) {
      if (t instanceof CannotHold) {
        return true;
      }
    }
    return false;
  }
}
