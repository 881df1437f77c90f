package dev.serbench.runner.measure;

/**
 * Consumes results so the JIT cannot drop the work that made them (JMH Blackhole's idea: a
 * comparison with a volatile field the optimizer cannot predict).
 */
public final class Sink {
  private volatile Object never = new Object();
  public Object escaped;

  public void consume(Object o) {
    if (o == never) {
      escaped = o;
    }
  }
}
