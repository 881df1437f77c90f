package dev.serbench.runner.tools;

import dev.serbench.runner.arrow.ArrowFiles;
import dev.serbench.runner.arrow.Dataset;
import dev.serbench.runner.arrow.SampleData;
import dev.serbench.runner.kit.Subject;
import dev.serbench.runner.subjects.Subjects;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a sample work directory (for trying the runner by hand):
 * {@code java -cp serbench-runner.jar dev.serbench.runner.tools.SampleWork DIR [rows] [op] [benchtime_ns] [count] [dataset]}
 * — one group with every subject that supports {@code op} (default decode) on a generated
 * dataset ({@code media} (default) or {@code mixed}), and the copy limit row of the first.
 */
public final class SampleWork {
  private SampleWork() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    String op = args.length > 2 ? args[2] : "decode";
    long benchtime = args.length > 3 ? Long.parseLong(args[3]) : 100_000_000L;
    int count = args.length > 4 ? Integer.parseInt(args[4]) : 5;
    String kind = args.length > 5 ? args[5] : "media";
    Dataset ds = kind.equals("mixed") ? SampleData.mixed(rows, 1) : SampleData.media(rows, 1);
    String name = ds.name();
    Path dir = work.resolve("datasets").resolve(name);
    Files.createDirectories(dir);
    Files.createDirectories(work.resolve("tmp"));
    try (OutputStream o = Files.newOutputStream(dir.resolve("data.arrows"))) {
      ArrowFiles.writeStream(ds.schema(), ds.rows(), 4096, o);
    }
    Files.writeString(work.resolve("run.json"), "{\"protocol\":1,\"run_id\":\"sample\",\"benchtime_ns\":" + benchtime
        + ",\"max_iters\":1000000000,\"count\":" + count + ",\"seed\":1}\n");
    List<String> cases = new ArrayList<>();
    String group = name + "/" + op;
    String first = null;
    for (Subject s : Subjects.all().values()) {
      if (!s.ops().contains(op)) {
        continue;
      }
      String id = name + "/" + s.name() + "/" + op;
      if (first == null) {
        first = id;
      }
      cases.add(line(id, group, s.name(), first.equals(id) ? "baseline" : "subject", op, name, rows, ""));
    }
    cases.add(line(name + "/copy", group, "copy", "limit", "copy", name, rows, first));
    Files.write(work.resolve("cases.jsonl"), cases);
  }

  static String line(String id, String group, String subject, String role, String op, String ds, int size, String limitOf) {
    return "{\"id\":\"" + id + "\",\"group\":\"" + group + "\",\"subject\":\"" + subject + "\",\"role\":\"" + role
        + "\",\"op\":\"" + op + "\",\"dataset\":\"" + ds + "\",\"size\":" + size
        + ",\"codec\":\"\",\"query\":\"" + (op.equals("query") ? (ds.startsWith("mixed") ? "id,attrs.b,items.[].q" : "id,media.title") : "") + "\",\"count\":0,\"min_count\":1,"
        + "\"budget_ns\":0,\"per_round\":0,\"no_warmup\":false,\"limit_of\":\"" + limitOf + "\",\"params\":{}}";
  }
}
