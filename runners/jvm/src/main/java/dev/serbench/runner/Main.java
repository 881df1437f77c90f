package dev.serbench.runner;

import dev.serbench.runner.measure.Codec;
import dev.serbench.runner.measure.Loop;
import dev.serbench.runner.subjects.Subject;
import dev.serbench.runner.subjects.Subjects;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * serbench's JVM runner, protocol 1 (docs/runner-protocol.md):
 * {@code hello --protocol 1} and {@code run --protocol 1 --work DIR}.
 */
public final class Main {
  public static final int PROTOCOL = 1;

  private Main() {}

  public static void main(String[] args) {
    // Standard output carries protocol lines only: anything a library prints goes to stderr.
    OutputStream stdout = new FileOutputStream(FileDescriptor.out);
    PrintStream err = System.err;
    System.setOut(err);
    int code = run(args, stdout, err, true);
    System.exit(code);
  }

  /** Runs the command line; returns the exit status. */
  public static int run(String[] args, OutputStream stdout, PrintStream err, boolean installSignalHandler) {
    Out out = new Out(stdout);
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
          return usage(out, err, "unknown argument " + a);
      }
    }
    if (!cmd.equals("hello") && !cmd.equals("run")) {
      return usage(out, err, cmd.isEmpty() ? "no command" : "unknown command " + cmd);
    }
    if (protocol == null) {
      protocol = System.getenv("SERBENCH_PROTOCOL");
    }
    if (protocol == null) {
      return usage(out, err, "--protocol is required");
    }
    Map<String, Subject> subjects = Subjects.all();
    out.line(hello(subjects));
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
    Runner r = new Runner(out, err, Path.of(work).toAbsolutePath(), subjects);
    Thread main = Thread.currentThread();
    Thread hook = null;
    Object done = new Object();
    boolean[] ended = {false};
    if (installSignalHandler) {
      hook = new Thread(() -> {
        err.println("serbench-runner: terminated: stopping at the next sample boundary");
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

  private static int usage(Out out, PrintStream err, String why) {
    err.println("serbench-runner: " + why);
    err.println("usage: java -jar serbench-runner.jar hello --protocol 1");
    err.println("       java -jar serbench-runner.jar run --protocol 1 --work DIR");
    out.line(Out.obj("type", "error", "phase", "setup", "message", "usage: " + why));
    return 2;
  }

  static Map<String, Object> hello(Map<String, Subject> subjects) {
    List<Map<String, Object>> ds = new ArrayList<>();
    for (Subject s : subjects.values()) {
      ds.add(Out.obj("name", s.name(), "format", s.format(), "library", s.library(),
          "version", Versions.of(s.library()), "ops", s.ops(), "codecs", Codec.ANNOUNCED,
          "codec_library", Codec.library(), "labels", s.labels()));
    }
    String arch = System.getProperty("os.arch", "");
    if (arch.equals("x86_64")) {
      arch = "amd64";
    } else if (arch.equals("aarch64")) {
      arch = "arm64";
    }
    return Out.obj("type", "hello", "protocol", PROTOCOL, "runner", "jvm", "language", "java",
        "runtime", System.getProperty("java.vm.name"),
        "runtime_version", System.getProperty("java.runtime.version", System.getProperty("java.vm.version")),
        "vm_flags", ManagementFactory.getRuntimeMXBean().getInputArguments(),
        "os", System.getProperty("os.name", "").toLowerCase(Locale.ROOT),
        "arch", arch,
        "alloc", Loop.allocSupported() ? "thread" : "none",
        "runner_version", Versions.runner(),
        "subjects", ds);
  }
}
