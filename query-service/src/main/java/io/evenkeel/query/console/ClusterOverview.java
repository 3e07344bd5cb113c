package io.evenkeel.query.console;

import com.google.common.util.concurrent.ListenableFuture;
import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.cluster.state.ClusterPlacement;
import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.ShardServerInfo;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The cluster as an operator looks at it: the live shard servers, and every shard's copies with what each copy's
 * server says of it (its Stats call). The copies come from the cluster state in ZooKeeper when the service follows
 * it, else from the fixed placement (primaries only).
 */
public final class ClusterOverview implements AutoCloseable {
  /** A server that does not answer in this time is shown as such, rather than holding the page. */
  private static final long STATS_DEADLINE_MS = 2_000;

  private final Supplier<ClusterState> state;
  private final ClusterClient client;

  /** Over the cluster state {@code state} gives (package-private: tests give any). */
  ClusterOverview(Supplier<ClusterState> state, ClientTls tls) {
    this.state = state;
    this.client = new ClusterClient(tls);
  }

  /** Over {@code placement}'s servers, reached as the query service reaches them. */
  public static ClusterOverview of(ShardPlacement placement, ClientTls tls) {
    if (placement instanceof ClusterPlacement followed) {
      return new ClusterOverview(followed::state, tls);
    }
    return new ClusterOverview(() -> fixed(placement), tls);
  }

  /** A fixed placement as a cluster state: each shard's primary, no replicas, every server live. */
  private static ClusterState fixed(ShardPlacement placement) {
    Map<String, ShardServerInfo> servers = new TreeMap<>();
    Map<Integer, ShardCopies> shards = new TreeMap<>();
    placement.primaries().forEach((shard, address) -> {
      servers.put(address.toString(), new ShardServerInfo(address.toString(), 0L));
      shards.put(shard, ShardCopies.newBuilder().setShard(shard).setPrimary(address.toString()).setTerm(0).build());
    });
    return new ClusterState(servers, shards, Map.of());
  }

  /** A live shard server and the copies it holds. */
  public record Server(String address, long startedMs, long primaries, long replicas) {}

  /**
   * One copy of a shard as its server reports it; {@code stats} null with {@code error} when the server did not
   * answer.
   */
  public record Copy(String server, String role, boolean live, boolean inSync, CopyStats stats, String error) {}

  /** A copy's figures from its Stats call. */
  public record CopyStats(long docs, long bytes, int segments, double writesPerSecond, long refreshLagMs,
      long replicaLagMs, long maxSeqNo, long primaryTerm, long unindexedRows) {
    static CopyStats of(ShardStats stats) {
      return new CopyStats(stats.getDocs(), stats.getBytes(), stats.getSegments(), stats.getWritesPerSecond(),
          stats.getRefreshLagMs(), stats.getReplicaLagMs(), stats.getMaxSeqNo(), stats.getPrimaryTerm(),
          stats.getUnindexedRows());
    }
  }

  /** One shard: its term, its copies (the primary first), and the move under way if any. */
  public record Shard(int shard, long term, String primary, List<Copy> copies, String moving) {}

  /** The whole picture at one moment. */
  public record Snapshot(long takenMs, List<Server> servers, List<Shard> shards) {}

  /** Reads the cluster state and asks every copy's server for its Stats, all at once, under one short deadline. */
  public Snapshot snapshot() {
    ClusterState cluster = state.get();
    List<Server> servers = new ArrayList<>();
    cluster.servers().values().stream().sorted((a, b) -> a.getAddress().compareTo(b.getAddress()))
        .forEach(info -> {
          long primaries = cluster.primariesOn(info.getAddress());
          servers.add(new Server(info.getAddress(), info.getStarted(), primaries,
              cluster.copiesOn(info.getAddress()) - primaries));
        });
    Map<String, ListenableFuture<ShardStats>> pending = new LinkedHashMap<>();
    for (ShardCopies copies : cluster.shards().values()) {
      for (String server : holders(copies)) {
        if (cluster.live(server)) {
          pending.put(copies.getShard() + "@" + server, client.futureStub(ShardAddress.parse(server))
              .withDeadlineAfter(STATS_DEADLINE_MS, TimeUnit.MILLISECONDS)
              .stats(StatsRequest.newBuilder().setShard(copies.getShard()).build()));
        }
      }
    }
    List<Shard> shards = new ArrayList<>();
    for (ShardCopies copies : cluster.shards().values()) {
      List<Copy> views = new ArrayList<>();
      if (copies.getPrimary() == null) {
        views.add(new Copy("-", "primary", false, false, null,
            "no primary: writes to this shard wait until a replica in sync is promoted"));
      }
      for (String server : holders(copies)) {
        boolean primary = server.equals(copies.getPrimary());
        boolean inSync = primary || copies.getInSync().contains(server);
        String role = primary ? "primary" : "replica";
        ListenableFuture<ShardStats> stats = pending.get(copies.getShard() + "@" + server);
        if (stats == null) {
          views.add(new Copy(server, role, false, inSync, null, "the server is not live"));
          continue;
        }
        try {
          ShardStats answer = stats.get(STATS_DEADLINE_MS + 1_000, TimeUnit.MILLISECONDS);
          views.add(new Copy(server, answer.getRole().toLowerCase(java.util.Locale.ROOT), true, inSync,
              CopyStats.of(answer), null));
        } catch (ExecutionException e) {
          Status status = Status.fromThrowable(e.getCause());
          views.add(new Copy(server, role, true, inSync, null, status.getCode()
              + (status.getDescription() == null ? "" : ": " + status.getDescription())));
        } catch (TimeoutException e) {
          stats.cancel(true);
          views.add(new Copy(server, role, true, inSync, null, "no answer in time"));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while asking the shard servers for their stats", e);
        }
      }
      shards.add(new Shard(copies.getShard(), copies.getTerm(), copies.getPrimary(), views,
          copies.getMove() == null ? null : copies.getMove().getFrom() + " → " + copies.getMove().getTo()));
    }
    return new Snapshot(System.currentTimeMillis(), servers, shards);
  }

  /** The servers holding a copy of the shard: the primary first, then the replicas. */
  private static List<String> holders(ShardCopies copies) {
    List<String> holders = new ArrayList<>();
    if (copies.getPrimary() != null) {
      holders.add(copies.getPrimary());
    }
    copies.getReplicas().stream().filter(replica -> !holders.contains(replica)).forEach(holders::add);
    return holders;
  }

  @Override
  public void close() {
    client.close();
  }
}
