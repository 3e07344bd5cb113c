package io.evenkeel.launcher.local;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.launcher.cli.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The data directory's shape, recorded on first start ({@code layout.json}): the number of shards decides where
 * every row lives and the servers own fixed ranges of them, so a restart with other numbers would lose rows from
 * view. A restart must match it; {@code --wipe} starts over.
 */
record StackLayout(@JsonProperty("shards") int shards, @JsonProperty("shard_servers") int shardServers) {
  static final String FILE = "layout.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Records this layout in a new data directory, or checks it against the one already recorded. */
  void claim(Path dataDir) throws IOException {
    Path file = dataDir.resolve(FILE);
    if (Files.exists(file)) {
      StackLayout recorded = JSON.readValue(file.toFile(), StackLayout.class);
      if (!recorded.equals(this)) {
        throw new UserError(dataDir + " holds a stack of " + recorded.shards + " shards on " + recorded.shardServers
            + " shard servers; got --shards " + shards + " --shard-servers " + shardServers
            + ": use those numbers, another --data-dir, or --wipe to start fresh");
      }
      return;
    }
    JSON.writeValue(file.toFile(), this);
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
