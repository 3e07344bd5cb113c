package io.evenkeel.benchmarks.jmh;

import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.router.rules.Rule;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.workload.ZipfTenants;
import java.util.concurrent.TimeUnit;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.simple.RandomSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Routing cost per write: {@code shardFor} over a rule list of {@code rules} rules naming some of {@code tenants}
 * tenants, for writes whose tenants follow Zipf(1) (hot tenants, which have the longest rule histories, are looked up
 * most) and whose creation times span the whole history. Plain hashing over the same writes is the baseline.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ShardForBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas")
public class ShardForBenchmark {
  private static final int BATCH = 4096;

  @Param("100000")
  int tenants;

  @Param("10000")
  int rules;

  @Param("64")
  int shards;

  private RoutingPolicy dynamic;
  private RoutingPolicy hashing;
  private final long[] tenantIds = new long[BATCH];
  private final long[] rowIds = new long[BATCH];
  private final long[] createdTimes = new long[BATCH];

  @Setup
  public void setUp() {
    UniformRandomProvider random = RandomSource.XO_RO_SHI_RO_128_PP.create(42L);
    ZipfTenants popularity = new ZipfTenants(random, tenants, 1.0);
    int maxExponent = Integer.numberOfTrailingZeros(Integer.highestOneBit(shards));
    RuleList.Builder list = RuleList.builder(shards);
    for (int i = 0; i < rules; i++) {
      long[] named = new long[1 + random.nextInt(8)];
      for (int j = 0; j < named.length; j++) {
        named[j] = popularity.next();
      }
      list.add(Rule.grow(i * 1_000L, 1 << (1 + random.nextInt(maxExponent)), named));
    }
    dynamic = RoutingPolicy.dynamic(list.build());
    hashing = RoutingPolicy.hashing(shards);
    for (int i = 0; i < BATCH; i++) {
      tenantIds[i] = popularity.next();
      rowIds[i] = random.nextLong();
      createdTimes[i] = random.nextLong(rules * 1_000L + 1_000L);
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void dynamicSecondaryHashing(Blackhole blackhole) {
    for (int i = 0; i < BATCH; i++) {
      blackhole.consume(dynamic.shardFor(tenantIds[i], rowIds[i], createdTimes[i]));
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void hashing(Blackhole blackhole) {
    for (int i = 0; i < BATCH; i++) {
      blackhole.consume(hashing.shardFor(tenantIds[i], rowIds[i], createdTimes[i]));
    }
  }
}
