package io.evenkeel.launcher.local;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.launcher.cli.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The data directory's shape, recorded on first start ({@code layout.json}) and when a server is added: the number
 * of shards decides where every row lives and each server holds copies of them, so a restart with other numbers
 * would lose rows from view. A restart must match it; {@code --wipe} starts over.
 */
record StackLayout(@JsonProperty("shards") int shards, @JsonProperty("shard_servers") int shardServers) {
  static final String FILE = "layout.json";
  /**
   * One shard server with 8 shards: on one machine, more server processes only cost more (each a JVM with its own
   * heap, threads and refreshes): the peer benchmark measured 3 servers with 12 shards at 0.79x the load speed and
   * 1.6x the shard servers' CPU of this layout.
   */
  static final StackLayout DEFAULT = new StackLayout(8, 1);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The layout to start: the numbers given, else those recorded in the data directory (a restart keeps its layout),
   * else the default.
   */
  static StackLayout choose(Integer shards, Integer shardServers, Optional<StackLayout> recorded) {
    StackLayout fallback = recorded.orElse(DEFAULT);
    return new StackLayout(shards != null ? shards : fallback.shards(),
        shardServers != null ? shardServers : fallback.shardServers());
  }

  /** The layout recorded in {@code dataDir}, if a stack ran there. */
  static Optional<StackLayout> recorded(Path dataDir) throws IOException {
    Path file = dataDir.resolve(FILE);
    return Files.exists(file) ? Optional.of(JSON.readValue(file.toFile(), StackLayout.class)) : Optional.empty();
  }

  /** Records this layout in a new data directory, or checks it against the one already recorded. */
  void claim(Path dataDir) throws IOException {
    Optional<StackLayout> existing = recorded(dataDir);
    if (existing.isPresent()) {
      StackLayout recorded = existing.get();
      if (!recorded.equals(this)) {
        throw new UserError(dataDir + " holds a stack of " + recorded.shards + " shards on " + recorded.shardServers
            + " shard servers; got --shards " + shards + " --shard-servers " + shardServers
            + ": use those numbers, another --data-dir, or --wipe to start fresh");
      }
      return;
    }
    record(dataDir);
  }

  /** Records this layout in {@code dataDir}, replacing the one there (a server was added to the running stack). */
  void record(Path dataDir) throws IOException {
    Path tmp = dataDir.resolve(FILE + ".tmp");
    JSON.writeValue(tmp.toFile(), this);
    Files.move(tmp, dataDir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Shards of server {@code index}: consecutive ranges, the first servers taking one more when N is uneven. */
  int firstShard(int index) {
    int per = shards / shardServers;
    int extra = shards % shardServers;
    return index * per + Math.min(index, extra);
  }

  int lastShard(int index) {
    return firstShard(index + 1) - 1;
  }
}
