package io.evenkeel.query.searchable;

import io.evenkeel.query.result.QueryException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import org.apache.kafka.common.TopicPartition;

/**
 * Read-your-writes for any producer: given the Kafka offsets of its last records (what {@code KafkaProducer}'s
 * {@code RecordMetadata} tells), waits until the ingest job has written every change up to them to its shard and a
 * refresh of every shard has started since, so that a query sees them; or, when the timeout passes first, says how
 * far behind the job is. A wait costs no work per row: the job's written offsets are read at most every 50 ms for all
 * waiters together and the refreshes they need are shared ({@link CoalescedRefresh}); at most {@link #MAX_WAITERS}
 * wait at once (a thread each), the next is told to come back.
 */
public final class SearchableWaits implements AutoCloseable {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);
  public static final int MAX_WAITERS = 32;
  /** The most partitions one wait names: more than any topic of the project has. */
  public static final int MAX_PARTITIONS = 1_024;
  private static final Duration POLL = WrittenOffsets.MAX_AGE;

  /** One partition the job has not written far enough: the last offset wanted and the next it will write. */
  public record Lag(int partition, long wanted, long next) {
    public long records() {
      return wanted + 1 - next;
    }
  }

  /** The outcome: searchable, or the partitions still behind when the timeout passed. */
  public record Answer(boolean searchable, long waitedMs, List<Lag> behind) {
    public long recordsBehind() {
      return behind.stream().mapToLong(Lag::records).sum();
    }
  }

  private final WrittenOffsets written;
  private final String defaultTopic;
  private final CoalescedRefresh refresh;
  private final Semaphore waiters = new Semaphore(MAX_WAITERS);

  /**
   * @param defaultTopic the topic of a wait that names none (the ingest job's)
   * @param refresh makes every acknowledged write searchable (the service's refresh of every shard)
   */
  public SearchableWaits(WrittenOffsets written, String defaultTopic, Runnable refresh) {
    this.written = written;
    this.defaultTopic = defaultTopic;
    this.refresh = new CoalescedRefresh(refresh);
  }

  public String defaultTopic() {
    return defaultTopic;
  }

  /**
   * Waits until the records at or before {@code lastOffsets} (partition to offset) of {@code topic} (null: the ingest
   * topic) are searchable, at most {@code timeout}.
   */
  public Answer await(String topic, Map<Integer, Long> lastOffsets, Duration timeout) throws InterruptedException {
    if (lastOffsets.isEmpty() || lastOffsets.size() > MAX_PARTITIONS) {
      throw QueryException.invalid("name 1 to " + MAX_PARTITIONS + " partitions' offsets; got " + lastOffsets.size());
    }
    if (timeout.isNegative() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw QueryException.invalid("the timeout is 0 to " + MAX_TIMEOUT.toMillis() + " ms; got " + timeout.toMillis());
    }
    if (!waiters.tryAcquire()) {
      throw QueryException.overloaded(MAX_WAITERS + " callers are waiting for their writes already; ask again soon");
    }
    try {
      String name = topic == null ? defaultTopic : topic;
      long started = System.nanoTime();
      long deadline = started + timeout.toNanos();
      while (true) {
        List<Lag> behind = behind(name, lastOffsets);
        if (behind.isEmpty()) {
          break;
        }
        if (System.nanoTime() >= deadline) {
          return new Answer(false, millisSince(started), behind);
        }
        Thread.sleep(POLL.toMillis());
      }
      refresh.await();
      return new Answer(true, millisSince(started), List.of());
    } finally {
      waiters.release();
    }
  }

  private List<Lag> behind(String topic, Map<Integer, Long> lastOffsets) throws InterruptedException {
    Map<TopicPartition, Long> next = written.next();
    List<Lag> behind = new ArrayList<>();
    for (Map.Entry<Integer, Long> wanted : new TreeMap<>(lastOffsets).entrySet()) {
      long nextOffset = next.getOrDefault(new TopicPartition(topic, wanted.getKey()), 0L);
      if (nextOffset <= wanted.getValue()) {
        behind.add(new Lag(wanted.getKey(), wanted.getValue(), nextOffset));
      }
    }
    return behind;
  }

  private static long millisSince(long started) {
    return (System.nanoTime() - started) / 1_000_000;
  }

  @Override
  public void close() {
    written.close();
  }
}
