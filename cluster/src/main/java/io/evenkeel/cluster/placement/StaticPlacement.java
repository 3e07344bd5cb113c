package io.evenkeel.cluster.placement;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A placement given once, in configuration. */
final class StaticPlacement implements ShardPlacement {
  private final int numShards;
  private final Map<Integer, ShardAddress> primaries;

  private StaticPlacement(int numShards, Map<Integer, ShardAddress> primaries) {
    this.numShards = numShards;
    this.primaries = Map.copyOf(primaries);
  }

  static StaticPlacement parse(int numShards, String spec) {
    Map<Integer, ShardAddress> primaries = new TreeMap<>();
    for (String entry : spec.split(",(?=[^,=]+:\\d+=)")) {
      int equals = entry.indexOf('=');
      if (equals < 0) {
        throw new IllegalArgumentException("placement entries are host:port=shards; got: '" + entry + "'");
      }
      ShardAddress address = ShardAddress.parse(entry.substring(0, equals).strip());
      for (String part : entry.substring(equals + 1).split(",")) {
        String range = part.strip();
        int dash = range.indexOf('-');
        int first;
        int last;
        try {
          first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
          last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("shard ranges look like 0-3,8; got: '" + range + "' in '" + entry + "'");
        }
        for (int shard = first; shard <= last; shard++) {
          if (shard < 0 || shard >= numShards) {
            throw new IllegalArgumentException("shard " + shard + " is outside [0, " + (numShards - 1) + "]");
          }
          ShardAddress previous = primaries.put(shard, address);
          if (previous != null && !previous.equals(address)) {
            throw new IllegalArgumentException("shard " + shard + " is placed on both " + previous + " and " + address);
          }
        }
      }
    }
    return new StaticPlacement(numShards, primaries);
  }

  @Override
  public int numShards() {
    return numShards;
  }

  @Override
  public Optional<ShardAddress> primaryOf(int shard) {
    return Optional.ofNullable(primaries.get(shard));
  }

  @Override
  public Map<Integer, ShardAddress> primaries() {
    return primaries;
  }
}
