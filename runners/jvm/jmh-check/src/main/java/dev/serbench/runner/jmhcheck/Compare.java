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
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Measures the three cases with the runner (its jar, through the protocol, one group of three
 * interleaved cases) and with JMH (one fork each), and prints the runner's median ns/op, JMH's
 * score and their ratio. Usage: {@code java -jar jmh-check/target/jmh-check.jar [runner.jar]}.
 */
public final class Compare {
  static final List<String> JVM = List.of("-Xms1g", "-Xmx1g", "-XX:+UseParallelGC");

  public static void main(String[] args) throws Exception {
    String jar = Path.of(args.length > 0 ? args[0] : "target/serbench-runner.jar").toAbsolutePath().toString();
    if (!new File(jar).isFile()) {
      throw new IllegalArgumentException("no runner jar " + jar + " (build it: mvn -q -o package -DskipTests)");
    }
    Map<String, Double> runner = runRunner(jar);
    Map<String, double[]> jmh = runJmh();
    System.out.println();
    System.out.println("case          subject       op      rows   runner median ns/op   JMH ns/op (99.9% CI)        runner/JMH");
    for (String[] c : Cases.ALL) {
      double r = runner.get(c[0]);
      double[] j = jmh.get(c[0]);
      System.out.printf(Locale.ROOT, "%-13s %-13s %-7s %5s   %19.0f   %12.0f ± %-10.0f   %.3f%n",
          c[0], c[1], c[2], c[3], r, j[0], j[1], r / j[0]);
    }
  }

  static Map<String, Double> runRunner(String jar) throws Exception {
    Path work = Files.createTempDirectory("serbench-jmh-check");
    Files.createDirectories(work.resolve("tmp"));
    List<String> cases = new ArrayList<>();
    for (String[] c : Cases.ALL) {
      String ds = "media-" + c[3];
      Path dir = work.resolve("datasets").resolve(ds);
      if (!Files.exists(dir)) {
        Files.createDirectories(dir);
        Dataset d = SampleData.media(Integer.parseInt(c[3]), 1);
        try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
          ArrowFiles.writeStream(d.schema(), d.rows(), 4096, o);
        }
      }
      cases.add("{\"id\":\"" + c[0] + "\",\"group\":\"check\",\"subject\":\"" + c[1] + "\",\"role\":\"subject\",\"op\":\""
          + c[2] + "\",\"dataset\":\"" + ds + "\",\"size\":" + c[3] + ",\"codec\":\"\",\"query\":\"\",\"count\":15,"
          + "\"min_count\":1,\"budget_ns\":0,\"per_round\":0,\"no_warmup\":false,\"limit_of\":\"\",\"params\":{}}");
    }
    Files.write(work.resolve("cases.jsonl"), cases);
    // JMH's default iteration is 1 s: the runner's samples here are 1 s too
    Files.writeString(work.resolve("run.json"),
        "{\"protocol\":1,\"run_id\":\"jmh-check\",\"benchtime_ns\":1000000000,\"max_iters\":1000000000,\"count\":15,\"seed\":1}");
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
      List<Double> xs = new ArrayList<>(e.getValue());
      xs.sort(null);
      int k = xs.size();
      med.put(e.getKey(), k % 2 == 1 ? xs.get(k / 2) : (xs.get(k / 2 - 1) + xs.get(k / 2)) / 2);
      System.out.printf(Locale.ROOT, "runner %s: %d samples, ns/op %s%n", e.getKey(), k, fmt(e.getValue()));
    }
    return med;
  }

  static String fmt(List<Double> xs) {
    StringBuilder b = new StringBuilder();
    for (double x : xs) {
      b.append(b.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.0f", x));
    }
    return b.toString();
  }

  static Map<String, double[]> runJmh() throws Exception {
    List<String> jvm = new ArrayList<>(JVM);
    jvm.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    jvm.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    jvm.add("--add-opens=java.base/java.util=ALL-UNNAMED");
    Options o = new OptionsBuilder()
        .include(Bench.class.getName() + "\\.")
        .forks(1)
        .warmupIterations(5)
        .warmupTime(TimeValue.seconds(1))
        .measurementIterations(10)
        .measurementTime(TimeValue.seconds(1))
        .jvmArgs(jvm.toArray(new String[0]))
        .shouldDoGC(true)
        .build();
    Collection<RunResult> rs = new Runner(o).run();
    Map<String, double[]> out = new HashMap<>();
    for (RunResult r : rs) {
      String label = r.getParams().getBenchmark();
      label = label.substring(label.lastIndexOf('.') + 1);
      String name = switch (label) {
        case "smallDecode" -> "small-decode";
        case "largeDecode" -> "large-decode";
        default -> "file-write";
      };
      out.put(name, new double[] {r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()});
    }
    return out;
  }
}
