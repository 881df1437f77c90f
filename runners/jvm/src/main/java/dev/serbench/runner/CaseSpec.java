package dev.serbench.runner;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** One line of cases.jsonl (§1); unknown fields are ignored. */
public record CaseSpec(String id, String group, String subject, String role, String op, String dataset,
    long size, String codec, String query, int count, int minCount, long budgetNs, int perRound,
    boolean noWarmup, String limitOf, List<String> paramKeys, String path) {

  static String text(JsonNode n, String k) {
    JsonNode v = n.get(k);
    return v == null || v.isNull() ? "" : v.asText();
  }

  public static CaseSpec parse(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a case is not a JSON object");
    }
    String id = text(n, "id");
    if (id.isEmpty()) {
      throw new IllegalArgumentException("a case without id");
    }
    List<String> keys = new ArrayList<>();
    JsonNode p = n.get("params");
    if (p != null && p.isObject()) {
      Iterator<String> it = p.fieldNames();
      while (it.hasNext()) {
        keys.add(it.next());
      }
    }
    return new CaseSpec(id, text(n, "group"), text(n, "subject"), text(n, "role"), text(n, "op"),
        text(n, "dataset"), n.path("size").asLong(0), text(n, "codec"), text(n, "query"),
        n.path("count").asInt(0), n.path("min_count").asInt(0), n.path("budget_ns").asLong(0),
        n.path("per_round").asInt(0), n.path("no_warmup").asBoolean(false), text(n, "limit_of"), keys,
        text(n, "path"));
  }
}
