package io.evenkeel.router.rules;

import io.evenkeel.schemas.ShardWeight;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A tenant's weighted shards (LogStore's routing table): its new rows go to {@code shards[i]} with probability {@code
 * weights[i]}, by a hash of the row id, so that an update finds its row where the insert put it. Immutable.
 */
public final class ShardTable {
  private final int[] shards;
  private final double[] weights;
  /** cumulative[i]: the weights of shards 0..i, the last exactly 1. */
  private final double[] cumulative;

  private ShardTable(int[] shards, double[] weights) {
    this.shards = shards;
    this.weights = weights;
    this.cumulative = new double[weights.length];
    double running = 0;
    for (int i = 0; i < weights.length; i++) {
      running += weights[i];
      cumulative[i] = running;
    }
    cumulative[cumulative.length - 1] = 1;
  }

  /**
   * Shards and their weights: distinct shards, positive finite weights, normalized to sum to 1 (the shards' range is
   * checked by {@link RuleList}, which knows the number of shards).
   */
  public static ShardTable of(int[] shards, double[] weights) {
    if (shards.length == 0 || shards.length != weights.length) {
      throw new IllegalArgumentException("a shard table needs one weight a shard and at least one shard; got "
          + shards.length + " shards and " + weights.length + " weights");
    }
    if (IntStream.of(shards).distinct().count() != shards.length || IntStream.of(shards).anyMatch(s -> s < 0)) {
      throw new IllegalArgumentException("a shard table's shards must be distinct and >= 0; got: "
          + Arrays.toString(shards));
    }
    double sum = 0;
    for (double weight : weights) {
      if (!(weight > 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException("a shard table's weights must be positive; got: "
            + Arrays.toString(weights));
      }
      sum += weight;
    }
    double total = sum;
    // Weights that already sum to 1 stay as they are, so that a table read back from Avro equals the one written.
    double[] normalized = Math.abs(total - 1) <= 1e-12 ? weights.clone()
        : Arrays.stream(weights).map(w -> w / total).toArray();
    return new ShardTable(shards.clone(), normalized);
  }

  public static ShardTable fromAvro(List<ShardWeight> table) {
    return of(table.stream().mapToInt(ShardWeight::getShard).toArray(),
        table.stream().mapToDouble(ShardWeight::getWeight).toArray());
  }

  public List<ShardWeight> toAvro() {
    List<ShardWeight> table = new ArrayList<>(shards.length);
    for (int i = 0; i < shards.length; i++) {
      table.add(new ShardWeight(shards[i], weights[i]));
    }
    return table;
  }

  /** The shard of a row whose hash, read as a fraction of 2^64, is {@code unit} in [0, 1). */
  public int pick(double unit) {
    for (int i = 0; i < cumulative.length - 1; i++) {
      if (unit < cumulative[i]) {
        return shards[i];
      }
    }
    return shards[shards.length - 1];
  }

  /**
   * Whether {@code other} routes about as this table does: the same shards in the same order, each weight within
   * {@code tolerance} of this one's. A max flow recomputed from the next window's load shifts the weights a little;
   * such a table is not worth a new rule.
   */
  public boolean closeTo(ShardTable other, double tolerance) {
    if (other == null || !Arrays.equals(shards, other.shards)) {
      return false;
    }
    for (int i = 0; i < weights.length; i++) {
      if (Math.abs(weights[i] - other.weights[i]) > tolerance) {
        return false;
      }
    }
    return true;
  }

  /** The shards, in table order (a fresh array). */
  public int[] shards() {
    return shards.clone();
  }

  /** The weights, summing to 1, in table order (a fresh array). */
  public double[] weights() {
    return weights.clone();
  }

  public int size() {
    return shards.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardTable t && Arrays.equals(t.shards, shards) && Arrays.equals(t.weights, weights);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shards) * 31 + Arrays.hashCode(weights);
  }

  @Override
  public String toString() {
    return IntStream.range(0, shards.length).mapToObj(i -> String.format(Locale.ROOT, "%d:%.3f", shards[i],
        weights[i])).collect(Collectors.joining(", ", "{", "}"));
  }
}
