package io.evenkeel.benchmarks.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.benchmarks.peer.SqlEndpoint;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What a replay's new rows look like to a user of SQL while it runs. Every {@code probeEvery}th new row sent is a
 * probe: every 250 ms one query asks which of the pending probes are found ({@code row_id IN (...)}), and a probe's
 * delay runs from its send to the first answer holding it. Every second {@code COUNT(*)} gives how many
 * rows are searchable. The rows sent are counted by send time, so a window's offered rate is known exactly.
 */
public final class SearchableWatch implements AutoCloseable {
  private static final int PROBES_PER_QUERY = 2_000;
  private static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long COUNT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long STALE_COUNT_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** A probe: sent at {@code sentNanos}, found {@code delayNanos} later, or not found by then when {@code !found}. */
  public record Probe(long sentNanos, long delayNanos, boolean found) {}

  /** {@code COUNT(*)} of the table at {@code nanos}. */
  public record Count(long nanos, long rows) {
    /** The table's row count at {@code nanos}, linear between the samples around it. */
    public static double at(List<Count> counts, long nanos) {
      Count before = counts.get(0);
      if (nanos <= before.nanos()) {
        return before.rows();
      }
      for (Count after : counts) {
        if (after.nanos() >= nanos) {
          double fraction = (double) (nanos - before.nanos()) / Math.max(1, after.nanos() - before.nanos());
          return before.rows() + fraction * (after.rows() - before.rows());
        }
        before = after;
      }
      return before.rows();
    }
  }

  private final SqlEndpoint stack;
  private final int probeEvery;
  private final ConcurrentSkipListMap<Long, Long> pending = new ConcurrentSkipListMap<>();
  private final List<Probe> probes = new ArrayList<>();
  private final List<Count> counts = new ArrayList<>();
  private final Thread poller;
  private long[] insertNanos = new long[1 << 16];
  private int inserts;
  /** The poller's: the last probe asked for. */
  private long cursor = Long.MIN_VALUE;
  private volatile String failure;

  public SearchableWatch(SqlEndpoint stack, int probeEvery) {
    this.stack = stack;
    this.probeEvery = probeEvery;
    this.poller = new Thread(this::poll, "searchable-watch");
    poller.setDaemon(true);
    poller.start();
  }

  /** The replayer's listener: counts new rows and takes every {@code probeEvery}th as a probe. */
  public void sent(TransactionLogChange change, long nanos) {
    if (change.getOp() != ChangeOp.INSERT) {
      return;
    }
    if (inserts == insertNanos.length) {
      insertNanos = Arrays.copyOf(insertNanos, 2 * inserts);
    }
    insertNanos[inserts++] = nanos;
    if (inserts % probeEvery == 0) {
      pending.put(change.getRowId(), nanos);
    }
  }

  /** New rows sent in [{@code from}, {@code to}) (nanoTime); call once the replay has ended. */
  long insertsBetween(long from, long to) {
    return Arrays.stream(insertNanos, 0, inserts).filter(t -> t >= from && t < to).count();
  }

  /** Waits until every probe is found or {@code maxNanos} have passed. */
  public void awaitProbes(long maxNanos) throws InterruptedException {
    long deadline = System.nanoTime() + maxNanos;
    while (!pending.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  private void poll() {
    long nextCount = System.nanoTime();
    while (!Thread.currentThread().isInterrupted()) {
      long started = System.nanoTime();
      try {
        if (started >= nextCount) {
          long rows = stack.rows("SELECT COUNT(*) FROM transaction_logs", List.of()).get(0).get(0).asLong();
          synchronized (counts) {
            counts.add(new Count(midpoint(started), rows));
          }
          nextCount += COUNT_INTERVAL_NANOS;
        }
        findProbes();
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        // One failed poll costs resolution, not the run; close() fails a run whose counts stopped.
        failure = e.toString();
      }
      try {
        long rest = PROBE_INTERVAL_NANOS - (System.nanoTime() - started);
        if (rest > 0) {
          TimeUnit.NANOSECONDS.sleep(rest);
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Asks for the pending probes in turn ({@link #nextBatch}); a probe found counts as found halfway through the query
   * that found it.
   */
  private void findProbes() throws IOException, InterruptedException {
    List<Long> batch = nextBatch(pending, cursor, PROBES_PER_QUERY);
    if (batch.isEmpty()) {
      return;
    }
    cursor = batch.get(batch.size() - 1);
    long started = System.nanoTime();
    JsonNode found = stack.rows("SELECT row_id FROM transaction_logs WHERE row_id IN ("
        + batch.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")", List.of());
    long at = midpoint(started);
    for (JsonNode row : found) {
      Long sent = pending.remove(row.get(0).asLong());
      if (sent != null) {
        synchronized (probes) {
          probes.add(new Probe(sent, at - sent, true));
        }
      }
    }
  }

  /**
   * Up to {@code size} pending probes (by row id): those after {@code cursor}, the last one asked for, then from the
   * first again, so that with more pending than one query holds each is still asked every few polls, and with fewer
   * every one is asked every poll. (Row ids grow as rows are sent: taking only those after the cursor would ask for
   * the newest probes alone while new ones keep coming.)
   */
  public static List<Long> nextBatch(NavigableMap<Long, ?> pending, long cursor, int size) {
    List<Long> batch = new ArrayList<>(Math.min(size, pending.size()));
    for (Long probe : pending.tailMap(cursor, false).keySet()) {
      if (batch.size() == size) {
        return batch;
      }
      batch.add(probe);
    }
    for (Long probe : pending.headMap(cursor, true).keySet()) {
      if (batch.size() == size) {
        break;
      }
      batch.add(probe);
    }
    return batch;
  }

  private static long midpoint(long started) {
    return started + (System.nanoTime() - started) / 2;
  }

  /**
   * Stops polling; probes still pending count at their wait so far. Throws when the counts stopped more than a few
   * seconds ago: the figures would hold the last count flat.
   */
  @Override
  public void close() throws InterruptedException, IOException {
    poller.interrupt();
    poller.join();
    long now = System.nanoTime();
    for (Map.Entry<Long, Long> probe : pending.entrySet()) {
      probes.add(new Probe(probe.getValue(), now - probe.getValue(), false));
    }
    pending.clear();
    if (counts.isEmpty() || now - counts.get(counts.size() - 1).nanos() > STALE_COUNT_NANOS) {
      throw new IOException("the stack's row count was not read in the last seconds of a replay: " + failure);
    }
  }

  public List<Probe> probes() {
    synchronized (probes) {
      return List.copyOf(probes);
    }
  }

  public List<Count> counts() {
    synchronized (counts) {
      return List.copyOf(counts);
    }
  }
}
