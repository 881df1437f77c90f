package org.example.javaser;

import dev.serbench.runner.kit.Kit;
import java.util.List;

/**
 * A serbench runner for Java's built-in serialization, a library serbench does not ship: the kit
 * serves the whole runner protocol for the subjects listed here.
 *
 * <pre>
 * serbench runner check 'java -jar examples/runner-java/target/java-ser-runner.jar'
 * serbench run records --runner java-ser='java -jar examples/runner-java/target/java-ser-runner.jar'
 * </pre>
 */
public final class JavaSerRunner {
  private JavaSerRunner() {}

  public static void main(String[] args) {
    Kit.main(args, "java-ser", List.of(new ObjectStreamSubject()));
  }
}
