package dev.serbench.runner.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kit jar (pom.xml's {@code kit} execution of maven-jar-plugin) holds the classes of
 * dev.serbench.runner (but Main) and of its kit, arrow, digest and measure packages. They must name
 * no class outside that set — not a built-in subject, Main, a tool or a generated protobuf class —
 * and none of the libraries pom.xml marks optional (only the built-in subjects use them), so an
 * outside runner that depends on the kit alone loads every class it needs.
 */
class KitLayoutTest {
  static final List<String> KIT_PACKAGES = List.of("dev/serbench/runner/kit/", "dev/serbench/runner/arrow/",
      "dev/serbench/runner/digest/", "dev/serbench/runner/measure/");

  /** Package prefixes of pom.xml's optional dependencies and of the generated classes. */
  static final List<String> NOT_IN_KIT = List.of("com/fasterxml/jackson/dataformat/", "org/msgpack/", "org/fressian/",
      "clojure/", "org/apache/avro/", "com/esotericsoftware/", "org/apache/fory/", "com/google/protobuf/",
      "org/apache/parquet/", "org/apache/hadoop/", "serbench/nested/", "media/pb/", "tpch/pb/", "userevents/pb/");

  static boolean inKit(String cls) {
    if (cls.startsWith("dev/serbench/runner/") && cls.indexOf('/', "dev/serbench/runner/".length()) < 0) {
      return !cls.equals("dev/serbench/runner/Main") && !cls.startsWith("dev/serbench/runner/Main$");
    }
    return KIT_PACKAGES.stream().anyMatch(cls::startsWith);
  }

  /** The UTF-8 constants of a class file (class names, descriptors, signatures, strings). */
  static List<String> utf8Constants(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    if (d.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    d.readUnsignedShort();
    d.readUnsignedShort();
    int n = d.readUnsignedShort();
    List<String> out = new ArrayList<>();
    for (int i = 1; i < n; i++) {
      int tag = d.readUnsignedByte();
      switch (tag) {
        case 1 -> out.add(d.readUTF());
        case 3, 4 -> d.readInt();
        case 5, 6 -> {
          d.readLong();
          i++;
        }
        case 7, 8, 16, 19, 20 -> d.readUnsignedShort();
        case 9, 10, 11, 12, 17, 18 -> d.readInt();
        case 15 -> {
          d.readUnsignedByte();
          d.readUnsignedShort();
        }
        default -> throw new IOException("constant pool tag " + tag);
      }
    }
    return out;
  }

  @Test
  void kitNamesOnlyKitClassesAndItsDependencies() throws Exception {
    Path classes = Path.of(Kit.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Path> files;
    try (Stream<Path> s = Files.walk(classes)) {
      files = s.filter(p -> p.toString().endsWith(".class")).toList();
    }
    Set<String> bad = new TreeSet<>();
    int kitClasses = 0;
    for (Path f : files) {
      String cls = classes.relativize(f).toString().replace('\\', '/').replaceAll("\\.class$", "");
      if (!inKit(cls)) {
        continue;
      }
      kitClasses++;
      try (InputStream in = Files.newInputStream(f)) {
        for (String u : utf8Constants(in)) {
          int at = u.indexOf("dev/serbench/runner/");
          while (at >= 0) {
            int e = at;
            while (e < u.length() && (Character.isJavaIdentifierPart(u.charAt(e)) || u.charAt(e) == '/')) {
              e++;
            }
            String ref = u.substring(at, e);
            if (!inKit(ref)) {
              bad.add(cls + " names " + ref);
            }
            at = u.indexOf("dev/serbench/runner/", e);
          }
          for (String p : NOT_IN_KIT) {
            if (u.startsWith(p) || u.contains("L" + p) || u.contains("[" + p)) {
              bad.add(cls + " names " + u);
            }
          }
        }
      }
    }
    assertTrue(kitClasses > 20, "found " + kitClasses + " kit classes under " + classes);
    assertEquals(Set.of(), bad);
  }
}
