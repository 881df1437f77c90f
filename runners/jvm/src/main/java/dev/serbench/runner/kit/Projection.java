package dev.serbench.runner.kit;

import dev.serbench.runner.digest.Digest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A query's projection: comma-separated column paths (§7.1), each a leaf path or the path of a
 * struct or list whose leaves it selects.
 */
public record Projection(String query, Set<String> leaves, Schema pruned) {
  public static Projection parse(String query, Schema schema) {
    List<Digest.Leaf> all = Digest.leaves(schema);
    Set<String> sel = new LinkedHashSet<>();
    for (String raw : query.split(",")) {
      String p = raw.trim();
      if (p.isEmpty()) {
        continue;
      }
      boolean found = false;
      for (Digest.Leaf l : all) {
        if (l.path().equals(p) || l.path().startsWith(p + ".")) {
          sel.add(l.path());
          found = true;
        }
      }
      if (!found) {
        throw new IllegalArgumentException("query: no column " + p);
      }
    }
    if (sel.isEmpty()) {
      throw new IllegalArgumentException("query: empty projection");
    }
    List<Field> fs = new ArrayList<>();
    for (Field f : schema.getFields()) {
      Field pf = prune(f, f.getName(), sel);
      if (pf != null) {
        fs.add(pf);
      }
    }
    return new Projection(query, sel, new Schema(fs, schema.getCustomMetadata()));
  }

  /** The field kept to the selected leaves under {@code path}, or null. */
  static Field prune(Field f, String path, Set<String> sel) {
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Struct: {
        List<Field> cs = new ArrayList<>();
        for (Field c : f.getChildren()) {
          Field pc = prune(c, path + "." + c.getName(), sel);
          if (pc != null) {
            cs.add(pc);
          }
        }
        return cs.isEmpty() ? null : new Field(f.getName(), f.getFieldType(), cs);
      }
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
      case Map: {
        Field c = prune(f.getChildren().get(0), path + ".[]", sel);
        if (c == null) {
          return null;
        }
        if (t.getTypeID() == ArrowType.ArrowTypeID.Map && c.getChildren().size() != 2) {
          // a map keeps its key and value: select the whole entry
          return f;
        }
        return new Field(f.getName(), f.getFieldType(), List.of(c));
      }
      default:
        return sel.contains(path) ? f : null;
    }
  }
}
