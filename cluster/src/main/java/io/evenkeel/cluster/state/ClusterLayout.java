package io.evenkeel.cluster.state;

import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.ShardServerInfo;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.util.Locale;

/**
 * Where the cluster state lives under the cluster's root, and how each znode's bytes are encoded (Avro single-object
 * messages, like the rule protocol's):
 *
 * <pre>
 * {root}/cluster/servers/{host:port}   ShardServerInfo  ephemeral: the server is alive while its session lasts
 * {root}/cluster/shards/{00005}        ShardCopies      the shard's primary, term, replicas and in-sync set
 * {root}/cluster/master/...            (Curator)        LeaderLatch among the shard servers
 * </pre>
 */
public final class ClusterLayout {
  public static final SingleObjectCodec<ShardCopies> SHARDS = SingleObjectCodec.of(ShardCopies.class);
  public static final SingleObjectCodec<ShardServerInfo> SERVERS = SingleObjectCodec.of(ShardServerInfo.class);

  private final String root;

  public ClusterLayout(String root) {
    this.root = root;
  }

  public String cluster() {
    return root + "/cluster";
  }

  public String servers() {
    return cluster() + "/servers";
  }

  public String server(String address) {
    return servers() + "/" + address;
  }

  public String shards() {
    return cluster() + "/shards";
  }

  public String shard(int shard) {
    return shards() + "/" + String.format(Locale.ROOT, "%05d", shard);
  }

  public String master() {
    return cluster() + "/master";
  }
}
