package dev.serbench.runner.arrow;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A dataset in the runner's generic in-memory model: the Arrow schema (dictionary fields carry their
 * value type, as Arrow Java's schema does) and one {@code LinkedHashMap<String,Object>} per row.
 *
 * <p>The generic model (see README.md): bool → Boolean; int8/16/32, uint8/16 → Integer; int64,
 * uint32 → Long; uint64 → Long holding the bit pattern; float16/32 → Float; float64 → Double;
 * string types → String; binary types → byte[]; timestamp, time, duration → Long microseconds
 * (floor); date32/date64 → Integer days; decimal → BigDecimal at the column's scale; struct →
 * LinkedHashMap (every field present, null for null); list types and map → ArrayList; null →
 * null.
 */
public record Dataset(String name, Schema schema, List<Map<String, Object>> rows) {
  public int size() {
    return rows.size();
  }
}
