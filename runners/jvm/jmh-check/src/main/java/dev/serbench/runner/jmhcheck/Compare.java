package dev.serbench.runner.jmhcheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Measures the three cases with the runner (its jar, through the protocol) and with JMH, each case
 * in {@link #FORKS} JVMs of its own on both sides — as many runner processes with that case alone
 * as JMH forks — so neither side's numbers carry another case's JIT profile or live heap, and a
 * JVM's luck (its heap layout, its compilation order) counts the same on both. The two sides
 * alternate (runner JVM, JMH fork, runner JVM, …), so a machine that slows down meanwhile slows
 * both. Each JVM's figure is the median of its samples (the runner's ns/op, JMH's iteration
 * scores); each side's figure is the median over its JVMs. Prints them and their ratio.
 * Usage: {@code java -jar jmh-check/target/jmh-check.jar [runner.jar]}.
 */
public final class Compare {
  static final List<String> JVM = List.of("-Xms1g", "-Xmx1g", "-XX:+UseParallelGC");
  /** JVMs per case and side. */
  static final int FORKS = 5;
  /** Samples (runner) and measurement iterations (JMH) per JVM, each 1 s. */
  static final int COUNT = 10;
  /**
   * JMH's warm-up iterations of 1 s: as long as the runner's warm-up cap (10 sample times, {@code
   * Calibration.CAP_SAMPLES}), so neither side measures less-warmed code than the other. The
   * runner's rule warms until three batches agree; on a loaded machine that took it up to 10 s on
   * the file write, more than JMH's default 5 × 1 s.
   */
  static final int WARMUP = 10;

  public static void main(String[] args) throws Exception {
    String jar = Path.of(args.length > 0 ? args[0] : "target/serbench-runner.jar").toAbsolutePath().toString();
    if (!new File(jar).isFile()) {
      throw new IllegalArgumentException("no runner jar " + jar + " (build it: mvn -q -o package -DskipTests)");
    }
    List<String> rows = new ArrayList<>();
    for (String[] c : Cases.ALL) {
      List<Double> runner = new ArrayList<>();
      List<Double> jmh = new ArrayList<>();
      for (int f = 0; f < FORKS; f++) {
        runner.add(runRunner(jar, c).get(c[0]));
        jmh.add(runJmh(c[0]));
      }
      double r = median(runner);
      double j = median(jmh);
      System.out.printf(Locale.ROOT, "%s: runner JVMs %s, JMH forks %s (ns/op)%n", c[0], fmt(runner), fmt(jmh));
      rows.add(String.format(Locale.ROOT, "%-13s %-13s %-7s %5s   %12.0f   %12.0f   %.3f", c[0], c[1], c[2], c[3], r, j, r / j));
    }
    System.out.println();
    System.out.println("case          subject       op      rows   runner ns/op      JMH ns/op   runner/JMH");
    rows.forEach(System.out::println);
  }

  /** One runner process measuring case c alone; its median ns/op by case id. */
  static Map<String, Double> runRunner(String jar, String[] c) throws Exception {
    Path work = Files.createTempDirectory("serbench-jmh-check");
    Files.createDirectories(work.resolve("tmp"));
    String ds = "media-" + c[3];
    Path dir = work.resolve("datasets").resolve(ds);
    if (!Files.exists(dir)) {
      Files.createDirectories(dir);
      Dataset d = SampleData.media(Integer.parseInt(c[3]), 1);
      try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
        ArrowFiles.writeStream(d.schema(), d.rows(), 4096, o);
      }
    }
    List<String> cases = List.of("{\"id\":\"" + c[0] + "\",\"group\":\"check\",\"subject\":\"" + c[1] + "\",\"role\":\"subject\",\"op\":\""
        + c[2] + "\",\"dataset\":\"" + ds + "\",\"size\":" + c[3] + ",\"codec\":\"\",\"query\":\"\",\"count\":" + COUNT + ","
        + "\"min_count\":1,\"budget_ns\":0,\"per_round\":0,\"no_warmup\":false,\"limit_of\":\"\",\"params\":{}}");
    Files.write(work.resolve("cases.jsonl"), cases);
    // JMH's default iteration is 1 s: the runner's samples here are 1 s too
    Files.writeString(work.resolve("run.json"),
        "{\"protocol\":1,\"run_id\":\"jmh-check\",\"benchtime_ns\":1000000000,\"max_iters\":1000000000,\"count\":" + COUNT + ",\"seed\":1}");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JVM);
    cmd.addAll(List.of("-jar", jar, "run", "--protocol", "1", "--work", work.toString()));
    System.out.println("runner: " + String.join(" ", cmd));
    Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    if (code != 0) {
      throw new IllegalStateException("runner exited " + code + ":\n" + out);
    }
    ObjectMapper m = new ObjectMapper();
    Map<String, List<Double>> samples = new HashMap<>();
    for (String line : out.split("\n")) {
      JsonNode n = m.readTree(line);
      String type = n.get("type").asText();
      if (type.equals("sample")) {
        samples.computeIfAbsent(n.get("case").asText(), k -> new ArrayList<>()).add(n.get("ns_per_op").asDouble());
      } else if (type.equals("error") || (type.equals("verify") && !n.get("ok").asBoolean())) {
        throw new IllegalStateException("runner: " + line);
      }
    }
    Map<String, Double> med = new HashMap<>();
    for (Map.Entry<String, List<Double>> e : samples.entrySet()) {
      med.put(e.getKey(), median(e.getValue()));
      System.out.printf(Locale.ROOT, "runner %s: %d samples, ns/op %s%n", e.getKey(), e.getValue().size(), fmt(e.getValue()));
    }
    return med;
  }

  static double median(List<Double> in) {
    List<Double> xs = new ArrayList<>(in);
    xs.sort(null);
    int k = xs.size();
    return k % 2 == 1 ? xs.get(k / 2) : (xs.get(k / 2 - 1) + xs.get(k / 2)) / 2;
  }

  static String fmt(List<Double> xs) {
    StringBuilder b = new StringBuilder();
    for (double x : xs) {
      b.append(b.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.0f", x));
    }
    return b.toString();
  }

  /** One JMH fork of case name; the median of its iteration scores (ns/op). */
  static double runJmh(String name) throws Exception {
    String method = switch (name) {
      case "small-decode" -> "smallDecode";
      case "large-decode" -> "largeDecode";
      default -> "fileWrite";
    };
    List<String> jvm = new ArrayList<>(JVM);
    jvm.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    jvm.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    jvm.add("--add-opens=java.base/java.util=ALL-UNNAMED");
    Options o = new OptionsBuilder()
        .include(Bench.class.getName() + "\\." + method + "$")
        .forks(1)
        .warmupIterations(WARMUP)
        .warmupTime(TimeValue.seconds(1))
        .measurementIterations(COUNT)
        .measurementTime(TimeValue.seconds(1))
        .jvmArgs(jvm.toArray(new String[0]))
        .shouldDoGC(true)
        .build();
    List<Double> scores = new ArrayList<>();
    for (RunResult r : new Runner(o).run()) {
      for (BenchmarkResult b : r.getBenchmarkResults()) {
        for (IterationResult it : b.getIterationResults()) {
          scores.add(it.getPrimaryResult().getScore());
        }
      }
    }
    if (scores.isEmpty()) {
      throw new IllegalStateException("JMH ran no iteration of " + method);
    }
    return median(scores);
  }
}
