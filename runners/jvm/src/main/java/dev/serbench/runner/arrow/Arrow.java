package dev.serbench.runner.arrow;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** The process-wide Arrow allocator. */
public final class Arrow {
  private static volatile RootAllocator root;

  private Arrow() {}

  public static BufferAllocator allocator() {
    RootAllocator r = root;
    if (r == null) {
      synchronized (Arrow.class) {
        if (root == null) {
          root = new RootAllocator(Long.MAX_VALUE);
        }
        r = root;
      }
    }
    return r;
  }
}
