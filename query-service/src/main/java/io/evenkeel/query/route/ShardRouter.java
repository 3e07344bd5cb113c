package io.evenkeel.query.route;

import io.evenkeel.query.normalize.Predicate;
import io.evenkeel.router.ShardSet;
import io.evenkeel.router.policy.RoutingPolicy;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Chooses the shards of a query. A query that names its tenants ({@code tenant_id = k} or {@code IN}) visits only
 * their shards, from the routing policy's rule list ({@link RoutingPolicy#shardsFor}), pruned by the query's
 * created_time bounds: rules not in force over that interval do not widen the range. Any other query visits every
 * shard. The policy is read per query, so a new rule list (from ZooKeeper) applies to the next query.
 */
public final class ShardRouter {
  private final Supplier<RoutingPolicy> policy;

  public ShardRouter(Supplier<RoutingPolicy> policy) {
    this.policy = policy;
  }

  /**
   * The tenants a normalized WHERE clause confines a query to (every row it can match belongs to one of them), or
   * null when it does not name its tenants.
   */
  public static Set<Long> tenantsNamed(Predicate where) {
    return TenantScope.of(where).tenants();
  }

  /** Every shard of the cluster. */
  public int[] allShards() {
    return ShardSet.all(policy.get().numShards()).shards();
  }

  public Route route(Predicate where) {
    RoutingPolicy current = policy.get();
    int numShards = current.numShards();
    TenantScope scope = TenantScope.of(where);
    if (scope.isEmpty()) {
      return new Route(new int[0], "no shards (the WHERE clause matches no tenant or time)");
    }
    if (scope.tenants() == null) {
      int[] all = ShardSet.all(numShards).shards();
      return new Route(all, "all " + numShards + " shards (no tenant_id = or IN in the WHERE clause)");
    }
    TreeSet<Integer> shards = new TreeSet<>();
    Map<Long, ShardSet> ranges = new TreeMap<>();
    for (long tenant : scope.tenants()) {
      ShardSet range = current.shardsFor(tenant, scope.from(), scope.to());
      ranges.put(tenant, range);
      for (int shard : range.shards()) {
        shards.add(shard);
      }
    }
    String time = scope.from() == Long.MIN_VALUE && scope.to() == Long.MAX_VALUE ? ""
        : " for created_time in [" + bound(scope.from()) + ", " + bound(scope.to()) + "]";
    String reason = shards.size() + " of " + numShards + " shards by " + current.name() + time + ": "
        + ranges.entrySet().stream().map(e -> "tenant " + e.getKey() + " -> " + e.getValue())
            .collect(Collectors.joining(", "));
    return new Route(shards.stream().mapToInt(Integer::intValue).toArray(), reason);
  }

  private static String bound(long value) {
    return value == Long.MIN_VALUE ? "min" : value == Long.MAX_VALUE ? "max" : Long.toString(value);
  }
}
