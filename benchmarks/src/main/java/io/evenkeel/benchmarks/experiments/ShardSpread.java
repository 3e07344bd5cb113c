package io.evenkeel.benchmarks.experiments;

import io.evenkeel.benchmarks.peer.EvenkeelPeer.ShardDocs;
import io.evenkeel.benchmarks.report.Stats;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How evenly a replay's rows fell over the shards and the servers [ESDB figs. 12 and 13d], from the primaries'
 * document counts (their Stats calls) at four moments: before the replay, at the end of its warm-up, at its end, and
 * after the grace period.
 *
 * @param shardThroughputSpread relative standard deviation (over the mean) of the rows each shard indexed a second
 *     between the warm-up's end and the replay's end: relative, as the simulator's, so that policies indexing
 *     different totals compare
 * @param serverThroughputSpread the same per server (the sum of its primaries)
 * @param shardSizeMaxOverMin the replay's rows on the shard that got most over those on the one that got fewest, once
 *     the grace period is over
 */
record ShardSpread(double shardThroughputSpread, double serverThroughputSpread, double shardSizeMaxOverMin) {
  static final ShardSpread UNKNOWN = new ShardSpread(Double.NaN, Double.NaN, Double.NaN);

  static ShardSpread of(List<ShardDocs> before, List<ShardDocs> from, List<ShardDocs> end, List<ShardDocs> after) {
    int shards = end.size();
    if (before.size() != shards || from.size() != shards || after.size() != shards) {
      throw new IllegalArgumentException("every snapshot needs every shard: " + before.size() + ", " + from.size()
          + ", " + end.size() + ", " + after.size());
    }
    long[] indexed = new long[shards];
    long[] rows = new long[shards];
    Map<String, Long> byServer = new TreeMap<>();
    for (int i = 0; i < shards; i++) {
      indexed[i] = end.get(i).docs() - from.get(i).docs();
      rows[i] = after.get(i).docs() - before.get(i).docs();
      byServer.merge(end.get(i).server(), indexed[i], Long::sum);
    }
    long smallest = Long.MAX_VALUE;
    long largest = 0;
    for (long count : rows) {
      smallest = Math.min(smallest, count);
      largest = Math.max(largest, count);
    }
    return new ShardSpread(Stats.coefficientOfVariation(indexed),
        Stats.coefficientOfVariation(byServer.values().stream().mapToLong(Long::longValue).toArray()),
        largest / (double) Math.max(1, smallest));
  }
}
