package dev.serbench.runner;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collection before a turn runs when the previous turns left garbage, and only then. */
class CollectGarbageTest {
  @TempDir
  Path work;

  /** Where the test's garbage goes, so the allocation is not optimized away. */
  static volatile byte[] sink;

  @Test
  void collectsOnlyAfterGarbage() {
    PrintStream log = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    Runner r = new Runner(new Out(new ByteArrayOutputStream()), log, work, Map.of());
    assertTrue(r.collectGarbage(), "the first turn collects: nothing is known of the heap yet");
    assertFalse(r.collectGarbage(), "nothing allocated since the last collection: no collection");
    for (int i = 0; i < 4; i++) {
      sink = new byte[(int) (Runner.GARBAGE_SLACK / 2)];
    }
    sink = null;
    assertTrue(r.collectGarbage(), "twice the slack allocated and dropped: a collection");
    assertFalse(r.collectGarbage(), "and none right after it");
  }
}
