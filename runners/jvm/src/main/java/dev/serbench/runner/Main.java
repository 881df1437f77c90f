package dev.serbench.runner;

import dev.serbench.runner.kit.Kit;
import dev.serbench.runner.subjects.Subjects;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * serbench's JVM runner, protocol 1 (docs/runner-protocol.md): {@code hello --protocol 1} and
 * {@code run --protocol 1 --work DIR}, served by the kit ({@link Kit}) for the built-in subjects
 * ({@link Subjects#all()}) — the same call an outside runner makes.
 */
public final class Main {
  public static final int PROTOCOL = Kit.PROTOCOL;

  private Main() {}

  public static void main(String[] args) {
    Kit.main(args, "jvm", List.copyOf(Subjects.all().values()));
  }

  /** Runs the command line; returns the exit status. */
  public static int run(String[] args, OutputStream stdout, PrintStream err, boolean installSignalHandler) {
    return Kit.run(args, "jvm", List.copyOf(Subjects.all().values()), stdout, err, installSignalHandler);
  }
}
