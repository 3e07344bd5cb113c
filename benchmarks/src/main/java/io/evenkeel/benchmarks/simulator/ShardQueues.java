package io.evenkeel.benchmarks.simulator;

/**
 * The shards of a simulated cluster as first-in first-out queues of writes, served tick by tick (a fluid model:
 * fractional writes).
 *
 * <p>Each shard indexes at most {@code shardCapacity} writes a second (one indexing thread per shard), and the shards
 * of a server together at most {@code serverCapacity} (its cores); a server with more demand than capacity shares it
 * equally among its busy shards ({@link #share}). A write's delay is the time from its arrival to the end of the tick it is
 * indexed in, less half a tick (arrivals spread over their tick). Only what happens from {@code firstMeasuredTick} on is
 * measured: writes indexed then count toward throughput, writes generated then toward delay.
 */
final class ShardQueues {
  private final int shards;
  private final int shardsPerServer;
  private final double shardBudget;
  private final double serverBudget;
  private final double tickMillis;
  private final int firstMeasuredTick;
  /** Writes that arrived at each shard in each tick, less those served: [shard][tick]. */
  private final double[][] waiting;
  /** The oldest tick with writes waiting, per shard. */
  private final int[] head;
  private final double[] queued;
  private final double[] stored;
  private final double[] servedInWindow;
  private final DelayHistogram delays;
  private int tick;

  ShardQueues(int shards, int servers, double shardCapacity, double serverCapacity, double tickMillis, int ticks,
      int firstMeasuredTick) {
    if (shards % servers != 0) {
      throw new IllegalArgumentException(shards + " shards do not spread evenly over " + servers + " servers");
    }
    this.shards = shards;
    this.shardsPerServer = shards / servers;
    this.shardBudget = shardCapacity * tickMillis / 1000;
    this.serverBudget = serverCapacity <= 0 ? Double.POSITIVE_INFINITY : serverCapacity * tickMillis / 1000;
    this.tickMillis = tickMillis;
    this.firstMeasuredTick = firstMeasuredTick;
    this.waiting = new double[shards][ticks];
    this.head = new int[shards];
    this.queued = new double[shards];
    this.stored = new double[shards];
    this.servedInWindow = new double[shards];
    this.delays = new DelayHistogram(tickMillis, ticks);
  }

  /** A write arrives at a shard in the current tick. */
  void arrive(int shard) {
    waiting[shard][tick]++;
    queued[shard]++;
    stored[shard]++;
  }

  /** Serves the current tick's budget, then moves to the next tick; returns the writes served. */
  double serve() {
    double served = 0;
    double[] demand = new double[shardsPerServer];
    for (int server = 0; server < shards / shardsPerServer; server++) {
      int first = server * shardsPerServer;
      for (int i = 0; i < shardsPerServer; i++) {
        demand[i] = Math.min(shardBudget, queued[first + i]);
      }
      double[] granted = share(demand, serverBudget);
      for (int i = 0; i < shardsPerServer; i++) {
        serveShard(first + i, granted[i]);
        served += granted[i];
      }
    }
    tick++;
    return served;
  }

  /**
   * A server's budget over its shards' demands, as its cores are shared among busy indexing threads: equal shares,
   * a shard needing less than its share taking only what it needs and leaving the rest to the others.
   */
  static double[] share(double[] demand, double budget) {
    double[] granted = new double[demand.length];
    Integer[] order = new Integer[demand.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> Double.compare(demand[a], demand[b]));
    double left = budget;
    for (int k = 0; k < order.length; k++) {
      double fair = left / (order.length - k);
      granted[order[k]] = Math.min(demand[order[k]], fair);
      left -= granted[order[k]];
    }
    return granted;
  }

  private void serveShard(int shard, double budget) {
    double[] queue = waiting[shard];
    while (budget > 1e-9 && head[shard] <= tick) {
      double take = Math.min(budget, queue[head[shard]]);
      if (take > 0) {
        queue[head[shard]] -= take;
        queued[shard] -= take;
        budget -= take;
        if (tick >= firstMeasuredTick) {
          servedInWindow[shard] += take;
        }
        if (head[shard] >= firstMeasuredTick) {
          delays.add((tick - head[shard] + 0.5) * tickMillis, take);
        }
      }
      if (queue[head[shard]] <= 1e-9) {
        queue[head[shard]] = 0;
        if (head[shard] == tick) {
          break;
        }
        head[shard]++;
      }
    }
  }

  /**
   * Counts the writes still waiting (generated in a measured tick) at their delay so far: a lower bound, so that an
   * overloaded shard's backlog shows in the percentiles rather than vanishing from them.
   */
  void countWaiting() {
    for (int shard = 0; shard < shards; shard++) {
      for (int t = Math.max(head[shard], firstMeasuredTick); t < tick; t++) {
        if (waiting[shard][t] > 0) {
          delays.add((tick - t - 0.5) * tickMillis, waiting[shard][t]);
        }
      }
    }
  }

  int tick() {
    return tick;
  }

  /** Writes served per shard in measured ticks. */
  double[] served() {
    return servedInWindow.clone();
  }

  /** Writes served per server in measured ticks. */
  double[] servedByServer() {
    double[] servers = new double[shards / shardsPerServer];
    for (int shard = 0; shard < shards; shard++) {
      servers[shard / shardsPerServer] += servedInWindow[shard];
    }
    return servers;
  }

  /** Rows each shard holds (every arrival: the simulated rows are never deleted). */
  double[] stored() {
    return stored.clone();
  }

  DelayHistogram delays() {
    return delays;
  }

  /** Writes waiting on all shards. */
  double backlog() {
    double total = 0;
    for (double one : queued) {
      total += one;
    }
    return total;
  }
}
