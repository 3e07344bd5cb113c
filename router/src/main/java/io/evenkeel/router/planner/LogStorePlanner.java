package io.evenkeel.router.planner;

import io.evenkeel.router.hashing.ShardFormula;
import io.evenkeel.router.rules.ShardTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jgrapht.alg.flow.DinicMFImpl;
import org.jgrapht.alg.interfaces.MaximumFlowAlgorithm.MaximumFlow;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleDirectedWeightedGraph;

/**
 * LogStore's routing [Cao et al., "LogStore: A Cloud-Native and Multi-Tenant Log Database", SIGMOD 2021]: tenants
 * are assigned to shards by a maximum flow under a per-shard capacity, recomputed from the monitored load.
 *
 * <p>A shard's capacity in a window is the mean load a shard times {@code 1 + headroom} (20%). When a window's load
 * puts a shard above it ({@link #overloaded}), a new table is computed ({@link #plan}): a flow network source →
 * tenant (its writes) → shard (its candidates) → sink (the shard's capacity less its small tenants' load), solved
 * with Dinic's algorithm; a tenant whose writes do not all flow gets more candidates (the shards with the most spare
 * capacity, until their room covers what did not flow) and the flow is solved again, until all of it flows or no
 * shard has room. A tenant's rows then go to its shards in proportion to its flow on each. Candidates are sticky (a
 * tenant keeps the shards it has), so tables change little from one to the next. Only large tenants, above a
 * twentieth of a shard's capacity ({@link #largeShare}), enter the network; the load of the others on each shard is
 * what the shard's load leaves once the large tenants' current routes are taken off, which keeps the network small
 * at 100,000 tenants and needs only the large tenants' writes from the monitor.
 */
public final class LogStorePlanner {
  /** A shard may take this much over the mean before the table is recomputed. */
  public static final double HEADROOM = 0.2;
  private static final int MAX_ROUNDS = 16;
  /** Tenants above this fraction of a shard's capacity enter the flow network. */
  private static final double LARGE_FRACTION_OF_CAPACITY = 1.0 / 20;
  /** A table whose shards stay and whose weights move less than this is not worth a new rule. */
  public static final double WEIGHT_TOLERANCE = 0.05;

  private final ShardFormula formula;
  private final int numShards;

  public LogStorePlanner(ShardFormula formula) {
    this.formula = formula;
    this.numShards = formula.numShards();
  }

  /** The share of all writes above which a tenant enters the flow network: a twentieth of a shard's capacity. */
  public static double largeShare(int numShards) {
    return LARGE_FRACTION_OF_CAPACITY * (1 + HEADROOM) / numShards;
  }

  /** A shard's capacity in a window whose shards took {@code shardLoads}: the mean times {@code 1 + headroom}. */
  public double capacity(double[] shardLoads) {
    return Arrays.stream(shardLoads).sum() / numShards * (1 + HEADROOM);
  }

  /** Whether a shard took more than its capacity. */
  public boolean overloaded(double[] shardLoads) {
    double capacity = capacity(shardLoads);
    return capacity > 0 && Arrays.stream(shardLoads).anyMatch(load -> load > capacity);
  }

  /**
   * The tables of the large tenants after a window in which the shards took {@code shardLoads} and the tenants
   * {@code writes} (at least every large one), the tenants routed by {@code current} tables meanwhile and the others to
   * their base shard. Every large tenant gets a table; one without a current table that fits on its base shard
   * gets the table of that one shard (a current table's shards stay candidates, so it may keep more).
   */
  public Map<Long, ShardTable> plan(double[] shardLoads, Map<Long, Long> writes, Map<Long, ShardTable> current) {
    if (shardLoads.length != numShards) {
      throw new IllegalArgumentException("one load a shard: " + numShards + " shards, " + shardLoads.length
          + " loads");
    }
    double capacity = capacity(shardLoads);
    double[] small = shardLoads.clone();
    List<Long> large = new ArrayList<>();
    writes.forEach((tenant, count) -> {
      if (count > capacity * LARGE_FRACTION_OF_CAPACITY) {
        large.add(tenant);
        addLoad(current.get(tenant), formula.baseShard(tenant), -count, small);
      }
    });
    for (int shard = 0; shard < numShards; shard++) {
      small[shard] = Math.max(0, small[shard]);
    }
    large.sort(Comparator.comparing(writes::get).reversed());
    Map<Long, List<Integer>> candidates = new HashMap<>();
    for (long tenant : large) {
      List<Integer> shards = new ArrayList<>();
      shards.add(formula.baseShard(tenant));
      ShardTable table = current.get(tenant);
      if (table != null) {
        for (int shard : table.shards()) {
          if (!shards.contains(shard)) {
            shards.add(shard);
          }
        }
      }
      candidates.put(tenant, shards);
    }
    Map<Long, double[]> flows = new HashMap<>();
    for (int round = 0; round < MAX_ROUNDS; round++) {
      flows = maxFlow(large, writes, candidates, small, capacity);
      double[] intoShard = small.clone();
      flows.values().forEach(flow -> {
        for (int shard = 0; shard < numShards; shard++) {
          intoShard[shard] += flow[shard];
        }
      });
      boolean grown = false;
      for (long tenant : large) {
        double unrouted = writes.get(tenant) - Arrays.stream(flows.get(tenant)).sum();
        if (unrouted <= 1e-6 * writes.get(tenant)) {
          continue;
        }
        // The roomiest shards it does not use yet, until their room covers what did not flow.
        List<Integer> shards = candidates.get(tenant);
        while (unrouted > 0) {
          int roomiest = -1;
          for (int shard = 0; shard < numShards; shard++) {
            if (!shards.contains(shard) && (roomiest < 0 || intoShard[shard] < intoShard[roomiest])) {
              roomiest = shard;
            }
          }
          if (roomiest < 0 || intoShard[roomiest] >= capacity) {
            break;
          }
          double room = capacity - intoShard[roomiest];
          shards.add(roomiest);
          intoShard[roomiest] += Math.min(room, unrouted); // so that the next tenant looks elsewhere
          unrouted -= room;
          grown = true;
        }
      }
      if (!grown) {
        break;
      }
    }
    Map<Long, ShardTable> next = new HashMap<>();
    for (long tenant : large) {
      double[] flow = flows.get(tenant);
      List<Integer> used = new ArrayList<>();
      for (int shard : candidates.get(tenant)) {
        if (flow[shard] > 1e-6 * writes.get(tenant)) {
          used.add(shard);
        }
      }
      if (used.isEmpty()) {
        // Nothing flowed (no shard had room): its rows stay on its base shard.
        next.put(tenant, ShardTable.of(new int[] {formula.baseShard(tenant)}, new double[] {1}));
        continue;
      }
      next.put(tenant, ShardTable.of(used.stream().mapToInt(Integer::intValue).toArray(),
          used.stream().mapToDouble(shard -> flow[shard]).toArray()));
    }
    return next;
  }

  /**
   * Of the {@code planned} tables, those worth a new rule: a tenant's first table unless it is just its base shard,
   * or a table that changes its shards or moves a weight by more than {@link #WEIGHT_TOLERANCE}.
   */
  public Map<Long, ShardTable> changes(Map<Long, ShardTable> planned, Map<Long, ShardTable> current) {
    Map<Long, ShardTable> changed = new HashMap<>();
    planned.forEach((tenant, table) -> {
      ShardTable now = current.get(tenant);
      boolean unchanged = now == null ? table.size() == 1 && table.shards()[0] == formula.baseShard(tenant)
          : table.closeTo(now, WEIGHT_TOLERANCE);
      if (!unchanged) {
        changed.put(tenant, table);
      }
    });
    return changed;
  }

  /** Adds {@code writes} of a tenant to the shards its table (or, without one, its base shard) sends them to. */
  public static void addLoad(ShardTable table, int base, double writes, double[] load) {
    if (table == null) {
      load[base] += writes;
      return;
    }
    int[] shards = table.shards();
    double[] weights = table.weights();
    for (int i = 0; i < shards.length; i++) {
      load[shards[i]] += writes * weights[i];
    }
  }

  /** Dinic's maximum flow over source → tenants → their candidate shards → sink; each tenant's flow per shard. */
  private Map<Long, double[]> maxFlow(List<Long> tenants, Map<Long, Long> writes, Map<Long, List<Integer>> candidates,
      double[] small, double capacity) {
    SimpleDirectedWeightedGraph<Integer, DefaultWeightedEdge> network =
        new SimpleDirectedWeightedGraph<>(DefaultWeightedEdge.class);
    int source = 0;
    int sink = 1;
    network.addVertex(source);
    network.addVertex(sink);
    for (int shard = 0; shard < numShards; shard++) {
      network.addVertex(2 + shard);
      network.setEdgeWeight(network.addEdge(2 + shard, sink), Math.max(0, capacity - small[shard]));
    }
    Map<DefaultWeightedEdge, long[]> tenantEdges = new HashMap<>();
    for (int i = 0; i < tenants.size(); i++) {
      long tenant = tenants.get(i);
      int vertex = 2 + numShards + i;
      network.addVertex(vertex);
      network.setEdgeWeight(network.addEdge(source, vertex), writes.get(tenant));
      for (int shard : candidates.get(tenant)) {
        DefaultWeightedEdge edge = network.addEdge(vertex, 2 + shard);
        network.setEdgeWeight(edge, writes.get(tenant));
        tenantEdges.put(edge, new long[] {tenant, shard});
      }
    }
    MaximumFlow<DefaultWeightedEdge> flow = new DinicMFImpl<>(network).getMaximumFlow(source, sink);
    Map<Long, double[]> byTenant = new HashMap<>();
    for (long tenant : tenants) {
      byTenant.put(tenant, new double[numShards]);
    }
    tenantEdges.forEach((edge, ends) -> byTenant.get(ends[0])[(int) ends[1]] = flow.getFlowMap().get(edge));
    return byTenant;
  }
}
