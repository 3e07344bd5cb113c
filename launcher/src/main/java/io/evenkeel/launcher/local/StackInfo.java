package io.evenkeel.launcher.local;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.evenkeel.launcher.cli.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a running local stack listens, written to {@code <data dir>/stack.json} once it is ready and removed when it
 * stops: {@code evenkeel load} and {@code evenkeel sql} find the stack through it.
 *
 * @param writtenOffsetsGroup the Kafka consumer group in which the ingest job records the offsets it has written
 * @param queryService the SQL endpoint's base URL
 * @param caCertificate with {@code --secure}, the CA that signed every certificate of the stack (PEM); else null
 * @param kafkaConfig with {@code --secure}, the Kafka client properties (SASL) the stack's clients use; else null
 */
public record StackInfo(
    @JsonProperty("pid") long pid,
    @JsonProperty("bootstrap_servers") String bootstrapServers,
    @JsonProperty("topic") String topic,
    @JsonProperty("written_offsets_group") String writtenOffsetsGroup,
    @JsonProperty("zookeeper") String zookeeper,
    @JsonProperty("zookeeper_root") String zookeeperRoot,
    @JsonProperty("shards") int shards,
    @JsonProperty("shard_servers") List<ShardServer> shardServers,
    @JsonProperty("flink_ui") String flinkUi,
    @JsonProperty("query_service") String queryService,
    @JsonProperty("ca_certificate") String caCertificate,
    @JsonProperty("kafka_config") String kafkaConfig) {
  public static final String FILE = "stack.json";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * A shard server's address and the shards it was laid out with as their primary, first..last (null for a server
   * added to the running stack; the cluster state in ZooKeeper says what each holds now).
   */
  public record ShardServer(@JsonProperty("address") String address, @JsonProperty("first_shard") Integer firstShard,
      @JsonProperty("last_shard") Integer lastShard) {}

  /** This stack with one more shard server. */
  public StackInfo withShardServer(ShardServer added) {
    List<ShardServer> servers = new ArrayList<>(shardServers);
    servers.add(added);
    return new StackInfo(pid, bootstrapServers, topic, writtenOffsetsGroup, zookeeper, zookeeperRoot, shards,
        List.copyOf(servers), flinkUi, queryService, caCertificate, kafkaConfig);
  }

  public void write(Path dataDir) throws IOException {
    Path tmp = dataDir.resolve(FILE + ".tmp");
    JSON.writeValue(tmp.toFile(), this);
    Files.move(tmp, dataDir.resolve(FILE), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /** The stack running on {@code dataDir}, or an error saying how to start one. */
  public static StackInfo read(Path dataDir) {
    Path file = dataDir.resolve(FILE);
    if (!Files.exists(file)) {
      throw new UserError("no local stack is running on " + dataDir + " (no " + FILE + "); start one with "
          + "`bin/evenkeel local` or name the servers with the options (see --help)");
    }
    try {
      return JSON.readValue(file.toFile(), StackInfo.class);
    } catch (IOException e) {
      throw new UserError("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
