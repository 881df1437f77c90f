package dev.serbench.runner.jmhcheck;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** JMH benchmarks of the three checked cases, with the runner's subject code. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Bench {
  @State(Scope.Benchmark)
  public static class SmallDecode {
    Cases.Bound b;

    @Setup(Level.Trial)
    public void setup() throws Exception {
      String[] c = Cases.ALL.get(0);
      b = new Cases.Bound(c[1], c[2], Integer.parseInt(c[3]));
    }
  }

  @State(Scope.Benchmark)
  public static class LargeDecode {
    Cases.Bound b;

    @Setup(Level.Trial)
    public void setup() throws Exception {
      String[] c = Cases.ALL.get(1);
      b = new Cases.Bound(c[1], c[2], Integer.parseInt(c[3]));
    }
  }

  @State(Scope.Benchmark)
  public static class FileWrite {
    Cases.Bound b;

    @Setup(Level.Trial)
    public void setup() throws Exception {
      String[] c = Cases.ALL.get(2);
      b = new Cases.Bound(c[1], c[2], Integer.parseInt(c[3]));
    }
  }

  @Benchmark
  public Object smallDecode(SmallDecode s) throws Exception {
    return s.b.op();
  }

  @Benchmark
  public Object largeDecode(LargeDecode s) throws Exception {
    return s.b.op();
  }

  @Benchmark
  public Object fileWrite(FileWrite s) throws Exception {
    return s.b.op();
  }
}
