package dev.serbench.runner;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Resolved library versions: the library's own {@code META-INF/maven/G/A/pom.properties} when the
 * jar carries it, else the version pinned in pom.xml (filtered into versions.properties).
 */
public final class Versions {
  private static final Properties PINNED = new Properties();

  static {
    try (InputStream in = Versions.class.getResourceAsStream("versions.properties")) {
      if (in != null) {
        PINNED.load(in);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Versions() {}

  /** The version of {@code group:artifact}; {@code unknown} when neither source has one. */
  public static String of(String ga) {
    int c = ga == null ? -1 : ga.indexOf(':');
    if (c <= 0 || c == ga.length() - 1) {
      return "unknown";
    }
    String path = "/META-INF/maven/" + ga.substring(0, c) + "/" + ga.substring(c + 1) + "/pom.properties";
    try (InputStream in = Versions.class.getResourceAsStream(path)) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version");
        if (v != null && !v.isEmpty()) {
          return v;
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return PINNED.getProperty(ga, "unknown");
  }

  /** The version of this runner (and of the kit: the Maven project's version). */
  public static String runner() {
    return PINNED.getProperty("runner", "unknown");
  }
}
