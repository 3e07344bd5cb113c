package io.evenkeel.benchmarks.simulator;

import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.planner.LogStorePlanner;
import io.evenkeel.router.rules.ShardTable;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * LogStore's routing as the simulator's fourth policy: the tables of {@link LogStorePlanner} (the ingest job's
 * {@code logstore} policy plans with the same class).
 *
 * <p>Each tenant starts on its base shard ({@code h1(tenant) mod N}, as hashing). When the load of two windows in a
 * row, routed by the current tables, puts a shard above its capacity, new tables are planned from the second; they
 * take effect T after the window, as dynamic secondary hashing's rules do, so the two differ in the assignment, not
 * in how soon it reacts. Rows stay where they were written: a tenant's queries visit every shard it was ever routed
 * to.
 */
final class LogStoreRouting implements SimulatedPolicy {
  private final ShardFormula formula;
  private final LogStorePlanner planner;
  private final int numShards;
  private final long effectiveDelayMillis;
  private Map<Long, ShardTable> current = Map.of();
  private Map<Long, ShardTable> pending;
  private long pendingFrom;
  private final Map<Long, BitSet> everRouted = new HashMap<>();
  private int tables;
  private int overloadedStreak;

  LogStoreRouting(int numShards, long effectiveDelayMillis) {
    this.formula = ShardFormula.standard(numShards);
    this.planner = new LogStorePlanner(formula);
    this.numShards = numShards;
    this.effectiveDelayMillis = effectiveDelayMillis;
  }

  @Override
  public String name() {
    return "logstore";
  }

  @Override
  public int shardFor(long tenant, long rowId, long now) {
    if (pending != null && now >= pendingFrom) {
      current = pending;
      pending = null;
      current.forEach((id, table) -> {
        BitSet shards = everRouted.computeIfAbsent(id, this::home);
        for (int shard : table.shards()) {
          shards.set(shard);
        }
      });
    }
    ShardTable table = current.get(tenant);
    return table == null ? formula.baseShard(tenant) : formula.shard(rowId, table);
  }

  private BitSet home(long tenant) {
    BitSet shards = new BitSet(numShards);
    shards.set(formula.baseShard(tenant));
    return shards;
  }

  @Override
  public void windowEnded(Map<Long, Long> writesByTenant, long[] shardWrites, long now) {
    if (writesByTenant.isEmpty() || pending != null) {
      return;
    }
    double[] load = new double[numShards];
    writesByTenant.forEach((tenant, writes) ->
        LogStorePlanner.addLoad(current.get(tenant), formula.baseShard(tenant), writes, load));
    // Two windows in a row, as the ingest job asks of a hot tenant: the policies differ in what they do, not when.
    overloadedStreak = planner.overloaded(load) ? overloadedStreak + 1 : 0;
    if (overloadedStreak < 2) {
      return;
    }
    overloadedStreak = 0;
    // As the real stack's rule list: a tenant the planner leaves out keeps the table it has.
    // and, as the ingest job, only the tables that changed become rules.
    Map<Long, ShardTable> changed = planner.changes(planner.plan(load, writesByTenant, current), current);
    Map<Long, ShardTable> next = new HashMap<>(current);
    next.putAll(changed);
    pending = next;
    pendingFrom = now + effectiveDelayMillis;
    tables += changed.size();
  }

  @Override
  public int fanOut(long tenant) {
    BitSet shards = (BitSet) everRouted.getOrDefault(tenant, home(tenant)).clone();
    ShardTable next = pending == null ? null : pending.get(tenant);
    if (next != null) {
      for (int shard : next.shards()) {
        shards.set(shard);
      }
    }
    return shards.cardinality();
  }

  @Override
  public int rules() {
    return tables;
  }
}
