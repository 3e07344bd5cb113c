package io.evenkeel.benchmarks.simulator;

import io.evenkeel.router.hashing.KeyHash;
import io.evenkeel.router.hashing.ShardFormula;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jgrapht.alg.flow.DinicMFImpl;
import org.jgrapht.alg.interfaces.MaximumFlowAlgorithm.MaximumFlow;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleDirectedWeightedGraph;

/**
 * LogStore's routing [Cao et al., "LogStore: A Cloud-Native and Multi-Tenant Log Database", SIGMOD 2021], as the
 * simulator's fourth policy: tenants are assigned to shards by a maximum flow under a per-shard capacity, recomputed
 * from the monitored load.
 *
 * <p>Each tenant starts on its home shard ({@code h1(tenant) mod N}, as hashing). When the load of two windows in a
 * row, routed by the current table, puts a shard above its capacity (the mean load a shard times {@code 1 +
 * headroom}), a new table is computed from the second: a flow network source → tenant (its traffic) → shard (its candidates) → sink (the shard's capacity),
 * solved with Dinic's algorithm; a tenant whose traffic does not all flow gets more candidates (the shards with the
 * most spare capacity, until their room covers what did not flow) and the flow is solved again, until all of it
 * flows or no shard has room. A tenant's rows then
 * go to its shards in proportion to its flow on each, by a hash of the row id. Candidates are sticky (a tenant keeps
 * the shards it has), so tables change little from one to the next. Tenants below a twentieth of a shard's capacity
 * stay on their home shard and enter the network as one load a shard, which keeps the network small at 100,000
 * tenants. A new table takes effect T after the window, as dynamic secondary hashing's rules do, so the two differ in
 * the assignment, not in how soon it reacts. Rows stay where they were written: a tenant's queries visit every shard
 * it was ever routed to.
 */
final class LogStoreRouting implements SimulatedPolicy {
  private static final double HEADROOM = 0.2;
  private static final int MAX_ROUNDS = 16;

  private final ShardFormula formula;
  private final KeyHash rowHash = KeyHash.row();
  private final int numShards;
  private final long effectiveDelayMillis;
  private Map<Long, Route> current = Map.of();
  private Map<Long, Route> pending;
  private long pendingFrom;
  private final Map<Long, BitSet> everRouted = new HashMap<>();
  private int tables;
  private int overloadedStreak;

  /** A tenant's shards and the cumulative share of its rows each takes. */
  record Route(int[] shards, double[] cumulative) {
    int pick(double u) {
      for (int i = 0; i < shards.length - 1; i++) {
        if (u < cumulative[i]) {
          return shards[i];
        }
      }
      return shards[shards.length - 1];
    }
  }

  LogStoreRouting(int numShards, long effectiveDelayMillis) {
    this.formula = ShardFormula.standard(numShards);
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
      current.forEach((id, route) -> {
        BitSet shards = everRouted.computeIfAbsent(id, t -> home(t));
        for (int shard : route.shards()) {
          shards.set(shard);
        }
      });
    }
    Route route = current.get(tenant);
    if (route == null) {
      return formula.baseShard(tenant);
    }
    return route.pick((rowHash.hash(rowId) >>> 11) * 0x1.0p-53);
  }

  private BitSet home(long tenant) {
    BitSet shards = new BitSet(numShards);
    shards.set(formula.baseShard(tenant));
    return shards;
  }

  @Override
  public void windowEnded(Map<Long, Long> writesByTenant, long now) {
    double total = writesByTenant.values().stream().mapToLong(Long::longValue).sum();
    if (total == 0 || pending != null) {
      return;
    }
    double capacity = total / numShards * (1 + HEADROOM);
    double[] load = new double[numShards];
    writesByTenant.forEach((tenant, writes) -> spread(current.get(tenant), formula.baseShard(tenant), writes, load));
    boolean overloaded = false;
    for (double shard : load) {
      overloaded |= shard > capacity;
    }
    // Two windows in a row, as the ingest job asks of a hot tenant: the policies differ in what they do, not when.
    overloadedStreak = overloaded ? overloadedStreak + 1 : 0;
    if (overloadedStreak < 2) {
      return;
    }
    overloadedStreak = 0;
    pending = solve(writesByTenant, capacity, current);
    pendingFrom = now + effectiveDelayMillis;
    tables++;
  }

  private static void spread(Route route, int home, double writes, double[] load) {
    if (route == null) {
      load[home] += writes;
      return;
    }
    double previous = 0;
    for (int i = 0; i < route.shards().length; i++) {
      load[route.shards()[i]] += writes * (route.cumulative()[i] - previous);
      previous = route.cumulative()[i];
    }
  }

  /** The new table: each large tenant's shards and shares from the maximum flow. */
  private Map<Long, Route> solve(Map<Long, Long> writesByTenant, double capacity, Map<Long, Route> table) {
    double[] small = new double[numShards];
    List<Long> large = new ArrayList<>();
    writesByTenant.forEach((tenant, writes) -> {
      if (writes > capacity / 20) {
        large.add(tenant);
      } else {
        small[formula.baseShard(tenant)] += writes;
      }
    });
    large.sort(Comparator.comparing(writesByTenant::get).reversed());
    Map<Long, List<Integer>> candidates = new HashMap<>();
    for (long tenant : large) {
      List<Integer> shards = new ArrayList<>();
      shards.add(formula.baseShard(tenant));
      Route route = table.get(tenant);
      if (route != null) {
        for (int shard : route.shards()) {
          if (!shards.contains(shard)) {
            shards.add(shard);
          }
        }
      }
      candidates.put(tenant, shards);
    }
    Map<Long, double[]> flows = new HashMap<>();
    for (int round = 0; round < MAX_ROUNDS; round++) {
      flows = maxFlow(large, writesByTenant, candidates, small, capacity);
      double[] intoShard = small.clone();
      flows.values().forEach(flow -> {
        for (int shard = 0; shard < numShards; shard++) {
          intoShard[shard] += flow[shard];
        }
      });
      boolean grown = false;
      for (long tenant : large) {
        double routed = Arrays.stream(flows.get(tenant)).sum();
        double unrouted = writesByTenant.get(tenant) - routed;
        if (unrouted <= 1e-6 * writesByTenant.get(tenant)) {
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
    Map<Long, Route> next = new HashMap<>();
    for (long tenant : large) {
      double[] flow = flows.get(tenant);
      double routed = Arrays.stream(flow).sum();
      int home = formula.baseShard(tenant);
      List<Integer> used = new ArrayList<>();
      for (int shard : candidates.get(tenant)) {
        if (flow[shard] > 0 || routed <= 0 && shard == home) {
          used.add(shard);
        }
      }
      if (used.size() == 1 && used.get(0) == home) {
        continue;
      }
      int[] shards = used.stream().mapToInt(Integer::intValue).toArray();
      double[] cumulative = new double[shards.length];
      double running = 0;
      for (int i = 0; i < shards.length; i++) {
        running += routed <= 0 ? 1.0 / shards.length : flow[shards[i]] / routed;
        cumulative[i] = running;
      }
      next.put(tenant, new Route(shards, cumulative));
    }
    return next;
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

  @Override
  public int fanOut(long tenant) {
    BitSet shards = (BitSet) everRouted.getOrDefault(tenant, home(tenant)).clone();
    Route next = pending == null ? null : pending.get(tenant);
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
