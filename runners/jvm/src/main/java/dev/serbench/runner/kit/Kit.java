package dev.serbench.runner.kit;

import dev.serbench.runner.Out;
import dev.serbench.runner.Runner;
import dev.serbench.runner.Versions;
import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.measure.Loop;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A serbench runner in one call (runner protocol 1, docs/runner-protocol.md): give it your
 * subjects and it answers serbench's {@code hello} and {@code run} — reads the work directory's
 * Arrow data into the generic model, builds each subject's native objects outside timing,
 * verifies every case by a round trip and reports the digest of what came back, calibrates,
 * samples each comparison group in interleaved rounds, applies the case's codec, measures the copy
 * limit rows, and writes the error lines and exit codes the protocol asks for. It is what serbench's
 * built-in JVM runner runs ({@code dev.serbench.runner.Main} is {@code Kit.main(args, "jvm",
 * its subjects)}).
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *   Kit.main(args, "mine", List.of(new MySubject()));
 * }
 * }</pre>
 *
 * <p>Then {@code serbench run records --runner mine='java -jar mine.jar'} measures them beside
 * serbench's own subjects and {@code serbench runner check 'java -jar mine.jar'} checks them.
 */
public final class Kit {
  /** The protocol version the kit speaks. */
  public static final int PROTOCOL = 1;

  private Kit() {}

  /**
   * The main method of a runner called {@code runner} (the hello's {@code runner}) measuring
   * {@code subjects}: serves {@code hello --protocol 1} and {@code run --protocol 1 --work DIR}
   * and exits with the protocol's status (0; 1 when the work directory cannot be read or the
   * runner failed; 2 for a usage error or another protocol version). Standard output carries the
   * protocol lines only: {@code System.out} is sent to standard error first, so a library that
   * prints does not break them. SIGTERM stops at the next sample boundary. Does not return.
   */
  public static void main(String[] args, String runner, List<? extends Subject> subjects) {
    OutputStream stdout = new FileOutputStream(FileDescriptor.out);
    PrintStream err = System.err;
    System.setOut(err);
    int code = run(args, runner, subjects, stdout, err, true);
    System.exit(code);
  }

  /**
   * Serves one command line as {@link #main} does, writing protocol lines to {@code stdout} and
   * messages to {@code err}, and returns the exit status instead of exiting (for tests).
   * {@code installSignalHandler}: stop at the next sample boundary on SIGTERM (a shutdown hook).
   */
  public static int run(String[] args, String runner, List<? extends Subject> subjects, OutputStream stdout,
      PrintStream err, boolean installSignalHandler) {
    Out out = new Out(stdout);
    Map<String, Subject> byName;
    try {
      byName = subjects(subjects);
    } catch (IllegalArgumentException e) {
      err.println(runner + ": " + e.getMessage());
      out.line(Out.obj("type", "error", "phase", "setup", "message", e.getMessage()));
      return 2;
    }
    String cmd = args.length > 0 ? args[0] : "";
    String protocol = null;
    String work = null;
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      String v = null;
      int eq = a.indexOf('=');
      String key = eq > 0 ? a.substring(0, eq) : a;
      if (eq > 0) {
        v = a.substring(eq + 1);
      } else if (i + 1 < args.length) {
        v = args[i + 1];
      }
      switch (key) {
        case "--protocol":
        case "-protocol":
          protocol = v;
          if (eq < 0) {
            i++;
          }
          break;
        case "--work":
        case "-work":
          work = v;
          if (eq < 0) {
            i++;
          }
          break;
        default:
          return usage(out, err, runner, "unknown argument " + a);
      }
    }
    if (!cmd.equals("hello") && !cmd.equals("run")) {
      return usage(out, err, runner, cmd.isEmpty() ? "no command" : "unknown command " + cmd);
    }
    if (protocol == null) {
      protocol = System.getenv("SERBENCH_PROTOCOL");
    }
    if (protocol == null) {
      return usage(out, err, runner, "--protocol is required");
    }
    out.line(hello(runner, byName.values()));
    if (!protocol.trim().equals(Integer.toString(PROTOCOL))) {
      out.line(Out.obj("type", "error", "phase", "setup",
          "message", "protocol " + protocol.trim() + " requested, this runner speaks " + PROTOCOL));
      out.line(Out.obj("type", "end", "cases", 0, "failed", 0));
      return 2;
    }
    if (cmd.equals("hello")) {
      out.line(Out.obj("type", "end", "cases", 0, "failed", 0));
      return 0;
    }
    if (work == null) {
      work = System.getenv("SERBENCH_WORK");
    }
    if (work == null || work.isEmpty()) {
      out.line(Out.obj("type", "error", "phase", "setup", "message", "run needs --work DIR"));
      out.line(Out.obj("type", "end", "cases", 0, "failed", 0));
      return 2;
    }
    Runner r = new Runner(out, err, Path.of(work).toAbsolutePath(), byName);
    Object done = new Object();
    boolean[] ended = {false};
    Thread hook = null;
    if (installSignalHandler) {
      hook = new Thread(() -> {
        err.println(runner + ": terminated: stopping at the next sample boundary");
        r.requestStop();
        synchronized (done) {
          long deadline = System.currentTimeMillis() + 4000;
          while (!ended[0] && System.currentTimeMillis() < deadline) {
            try {
              done.wait(100);
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }, "serbench-stop");
      Runtime.getRuntime().addShutdownHook(hook);
    }
    int code = 0;
    try {
      r.run();
    } catch (Runner.WorkError e) {
      out.line(Out.obj("type", "error", "phase", "setup", "message", e.getMessage()));
      code = 1;
    } catch (Throwable t) {
      t.printStackTrace(err);
      out.line(Out.obj("type", "error", "phase", "setup", "message", "runner failed: " + Out.oneLine(t)));
      code = 1;
    }
    out.line(Out.obj("type", "end", "cases", r.finished(), "failed", r.failed()));
    synchronized (done) {
      ended[0] = true;
      done.notifyAll();
    }
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // shutting down already
      }
    }
    return code;
  }

  /**
   * The subjects by name, in order; refuses a null subject, an empty name or one with a slash or
   * white space, the name {@code copy} (the limit row's), a name given twice, and an empty format
   * or library.
   */
  public static Map<String, Subject> subjects(Collection<? extends Subject> subjects) {
    Map<String, Subject> m = new LinkedHashMap<>();
    if (subjects == null) {
      throw new IllegalArgumentException("no subjects");
    }
    for (Subject s : subjects) {
      if (s == null) {
        throw new IllegalArgumentException("a null subject");
      }
      String n = s.name();
      if (n == null || n.isEmpty() || n.contains("/") || !n.strip().equals(n) || n.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("subject name \"" + n + "\": want a non-empty name without slashes or white space");
      }
      if (n.equals("copy")) {
        throw new IllegalArgumentException("subject name \"copy\" is the limit row's");
      }
      if (s.format() == null || s.format().isEmpty() || s.library() == null || s.library().isEmpty()) {
        throw new IllegalArgumentException("subject " + n + ": empty format or library");
      }
      if (m.put(n, s) != null) {
        throw new IllegalArgumentException("two subjects named " + n);
      }
    }
    return m;
  }

  /**
   * A label map from key/value pairs, in that order: {@code labels("codegen", "no", "reuse", "no")}
   * (serbench's fairness labels, docs/runner-protocol.md §3.1).
   */
  public static Map<String, String> labels(String... kv) {
    if (kv.length % 2 != 0) {
      throw new IllegalArgumentException("labels: an odd number of strings (key/value pairs expected)");
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  /** The hello line (§3.1) of a runner called {@code runner} measuring {@code subjects}. */
  public static Map<String, Object> hello(String runner, Collection<? extends Subject> subjects) {
    List<Map<String, Object>> ds = new ArrayList<>();
    for (Subject s : subjects) {
      ds.add(Out.obj("name", s.name(), "format", s.format(), "library", s.library(),
          "version", s.version(), "ops", s.ops(), "codecs", Codec.ANNOUNCED,
          "codec_library", Codec.library(), "labels", s.labels()));
    }
    String arch = System.getProperty("os.arch", "");
    if (arch.equals("x86_64")) {
      arch = "amd64";
    } else if (arch.equals("aarch64")) {
      arch = "arm64";
    }
    return Out.obj("type", "hello", "protocol", PROTOCOL, "runner", runner, "language", "java",
        "runtime", System.getProperty("java.vm.name"),
        "runtime_version", System.getProperty("java.runtime.version", System.getProperty("java.vm.version")),
        "vm_flags", ManagementFactory.getRuntimeMXBean().getInputArguments(),
        "os", System.getProperty("os.name", "").toLowerCase(Locale.ROOT),
        "arch", arch,
        "alloc", Loop.allocSupported() ? "thread" : "none",
        "runner_version", Versions.runner(),
        "subjects", ds);
  }

  private static int usage(Out out, PrintStream err, String runner, String why) {
    err.println(runner + ": " + why);
    err.println("usage: " + runner + " hello --protocol " + PROTOCOL);
    err.println("       " + runner + " run --protocol " + PROTOCOL + " --work DIR");
    out.line(Out.obj("type", "error", "phase", "setup", "message", "usage: " + why));
    return 2;
  }
}
