package io.evenkeel.query.searchable;

import io.evenkeel.query.result.QueryException;
import io.evenkeel.schemas.CdcPosition;
import io.evenkeel.schemas.change.SourcePosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * Read-your-writes for any producer: given the Kafka offsets of its last records (what {@code KafkaProducer}'s
 * {@code RecordMetadata} tells), or for a captured table the binlog position or GTID of its commit, waits until the
 * ingest job has written every change up to them to its shard and a refresh of every shard has started since, so that
 * a query sees them; or, when the timeout passes first, says how far behind the job (or the CDC runner) is. A wait
 * costs no work per row: the job's written offsets are read at most every 50 ms for all waiters together, as are the
 * CDC runners' positions ({@link CdcProgress}), and the refreshes they need are shared ({@link CoalescedRefresh}); at
 * most {@link #MAX_WAITERS} wait at once (a thread each), the next is told to come back.
 */
public final class SearchableWaits implements AutoCloseable {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);
  public static final int MAX_WAITERS = 32;
  /** The most partitions one wait names: more than any topic of the project has. */
  public static final int MAX_PARTITIONS = 1_024;
  private static final Duration POLL = WrittenOffsets.MAX_AGE;
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  /** One partition the job has not written far enough: the last offset wanted and the next it will write. */
  public record Lag(int partition, long wanted, long next) {
    public long records() {
      return wanted + 1 - next;
    }
  }

  /**
   * The outcome: searchable, or the partitions still behind when the timeout passed; for a wait by source position
   * that the CDC runner has not published yet, how far it has ({@code cdcPublished}, null if it has published none).
   */
  public record Answer(boolean searchable, long waitedMs, List<Lag> behind, CdcPosition cdcPublished) {
    public long recordsBehind() {
      return behind.stream().mapToLong(Lag::records).sum();
    }

    /** Whether the CDC runner, not the ingest job, is what the wait is still waiting for. */
    public boolean cdcBehind() {
      return !searchable && behind.isEmpty();
    }
  }

  private final WrittenOffsets written;
  private final CdcProgress cdc;
  private final String defaultTopic;
  private final String defaultCdcTopic;
  private final CoalescedRefresh refresh;
  private final Semaphore waiters = new Semaphore(MAX_WAITERS);

  /**
   * @param kafka the Kafka client properties (bootstrap, security) to read the CDC runners' positions with
   * @param defaultTopic the topic of a wait by offsets that names none (the ingest job's)
   * @param defaultCdcTopic the change topic of a wait by source position that names none (null: it must name one)
   * @param refresh makes every acknowledged write searchable (the service's refresh of every shard)
   */
  public SearchableWaits(WrittenOffsets written, Properties kafka, String defaultTopic, String defaultCdcTopic,
      Runnable refresh) {
    this.written = written;
    this.cdc = new CdcProgress(kafka);
    this.defaultTopic = defaultTopic;
    this.defaultCdcTopic = defaultCdcTopic;
    this.refresh = new CoalescedRefresh(refresh);
  }

  /**
   * Waits until the records at or before {@code lastOffsets} (partition to offset) of {@code topic} (null: the ingest
   * topic) are searchable, at most {@code timeout}.
   */
  public Answer await(String topic, Map<Integer, Long> lastOffsets, Duration timeout) throws InterruptedException {
    if (lastOffsets.isEmpty() || lastOffsets.size() > MAX_PARTITIONS) {
      throw QueryException.invalid("name 1 to " + MAX_PARTITIONS + " partitions' offsets; got " + lastOffsets.size());
    }
    long started = System.nanoTime();
    long deadline = started + checked(timeout).toNanos();
    return waiting(() -> awaitWritten(topic == null ? defaultTopic : checkedTopic(topic), lastOffsets, started,
        deadline));
  }

  /**
   * Waits until every change of the captured table up to {@code position} in its source's binlog is searchable, at
   * most {@code timeout}: until its CDC runner has published a position at or past it, then until the ingest job has
   * written the change topic up to the offsets published with the earliest such position. {@code changeTopic} (null:
   * the service's --cdc-topic) is the runner's topic.
   */
  public Answer await(String changeTopic, SourcePosition position, Duration timeout) throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + checked(timeout).toNanos();
    String topic = changeTopic != null ? checkedTopic(changeTopic) : defaultCdcTopic;
    if (topic == null) {
      throw QueryException.invalid("name the CDC runner's change topic (topic=<prefix>.<database>.<table>): this "
          + "service runs without --cdc-topic");
    }
    try {
      cdc.requireRunner(topic);
    } catch (IllegalArgumentException e) {
      throw QueryException.invalid(e.getMessage());
    }
    return waiting(() -> {
      while (true) {
        CdcProgress.Look look;
        try {
          look = cdc.look(topic, position);
        } catch (IllegalArgumentException e) {
          throw QueryException.invalid(e.getMessage());
        }
        if (look.reached()) {
          Map<Integer, Long> lastOffsets = new TreeMap<>();
          look.position().getLastOffsets().forEach(p -> lastOffsets.put(p.getPartition(), p.getOffset()));
          return awaitWritten(topic, lastOffsets, started, deadline);
        }
        if (System.nanoTime() >= deadline) {
          return new Answer(false, millisSince(started), List.of(), look.position());
        }
        Thread.sleep(POLL.toMillis());
      }
    });
  }

  private interface Wait {
    Answer run() throws InterruptedException;
  }

  /** Runs {@code wait} as one of the {@link #MAX_WAITERS}, or refuses it at once. */
  private Answer waiting(Wait wait) throws InterruptedException {
    if (!waiters.tryAcquire()) {
      throw QueryException.overloaded(MAX_WAITERS + " callers are waiting for their writes already; ask again soon");
    }
    try {
      return wait.run();
    } finally {
      waiters.release();
    }
  }

  private Answer awaitWritten(String topic, Map<Integer, Long> lastOffsets, long started, long deadline)
      throws InterruptedException {
    while (true) {
      List<Lag> behind = behind(topic, lastOffsets);
      if (behind.isEmpty()) {
        break;
      }
      if (System.nanoTime() >= deadline) {
        return new Answer(false, millisSince(started), behind, null);
      }
      Thread.sleep(POLL.toMillis());
    }
    refresh.await();
    return new Answer(true, millisSince(started), List.of(), null);
  }

  private static Duration checked(Duration timeout) {
    if (timeout.isNegative() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw QueryException.invalid("the timeout is 0 to " + MAX_TIMEOUT.toMillis() + " ms; got " + timeout.toMillis());
    }
    return timeout;
  }

  /** A Kafka topic name (letters, digits, '.', '_', '-'; at most 249), else a 400. */
  private static String checkedTopic(String topic) {
    if (!TOPIC.matcher(topic).matches()) {
      throw QueryException.invalid("a topic name is 1 to 249 letters, digits, '.', '_' or '-'");
    }
    return topic;
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
    cdc.close();
  }
}
