package io.evenkeel.ingest.sink;

import io.evenkeel.schemas.TenantShare;
import io.evenkeel.schemas.WindowSummary;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tenants are hot now, in the monitor's view: the sink's lanes follow it. A tenant enters when a window summary
 * shows its share of the writes above {@code hotShare} (the balancer's hot threshold, α/N) and leaves when one shows
 * it below {@code coolShare} (the cool band) or leaves it out (the monitor lists every tenant above the band). The
 * band between the two keeps a tenant near the threshold from switching lanes every window.
 *
 * <p>{@link #follow} reads the monitor's summary topic from its latest summary on, on a thread of its own; {@link
 * #test} is read by the sink's task thread.
 */
final class MonitoredHotTenants implements LongPredicate, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MonitoredHotTenants.class);
  private static final long RETRY_MS = 1_000;

  private final double hotShare;
  private final double coolShare;
  private volatile Set<Long> hot = Set.of();
  private long lastWindowEnd = Long.MIN_VALUE;
  private KafkaConsumer<byte[], byte[]> consumer;
  private Thread follower;

  MonitoredHotTenants(double hotShare, double coolShare) {
    if (!(coolShare > 0 && coolShare <= hotShare)) {
      throw new IllegalArgumentException("the cool share must be in (0, hot share]: " + coolShare + ", " + hotShare);
    }
    this.hotShare = hotShare;
    this.coolShare = coolShare;
  }

  @Override
  public boolean test(long tenant) {
    Set<Long> now = hot;
    return !now.isEmpty() && now.contains(tenant);
  }

  /** The hot tenants now. */
  Set<Long> tenants() {
    return hot;
  }

  /** Takes a window's summary into the view; an older window than one taken already changes nothing. */
  synchronized void update(WindowSummary summary) {
    if (summary.getWindowEnd() <= lastWindowEnd) {
      return;
    }
    lastWindowEnd = summary.getWindowEnd();
    Map<Long, Double> shares = new HashMap<>();
    for (TenantShare share : summary.getTopTenants()) {
      shares.put(share.getTenantId(), share.getShare());
    }
    Set<Long> next = new HashSet<>();
    for (Long tenant : hot) {
      if (shares.getOrDefault(tenant, 0.0) >= coolShare) {
        next.add(tenant);
      }
    }
    shares.forEach((tenant, share) -> {
      if (share > hotShare) {
        next.add(tenant);
      }
    });
    if (!next.equals(hot)) {
      LOG.info("hot tenants (the sink's hot lanes) from the window ending at {}: {}", lastWindowEnd, next);
      hot = Set.copyOf(next);
    }
  }

  /**
   * Follows the monitor's summaries on {@code topic} from each partition's latest one on, until {@link #close}. The
   * view stays empty (every tenant in the normal lanes) until the first summary arrives.
   */
  void follow(Properties kafka, String topic, String name) {
    Properties properties = new Properties();
    properties.putAll(kafka);
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    consumer = new KafkaConsumer<>(properties);
    SingleObjectCodec<WindowSummary> codec = SingleObjectCodec.of(WindowSummary.class);
    follower = new Thread(() -> run(topic, codec), name);
    follower.setDaemon(true);
    follower.start();
  }

  private void run(String topic, SingleObjectCodec<WindowSummary> codec) {
    try {
      while (true) {
        try {
          follow(topic, codec);
        } catch (WakeupException closing) {
          throw closing;
        } catch (RuntimeException e) {
          // A broker that is slow or away, a topic not there yet: the lanes keep their view meanwhile.
          LOG.warn("following the monitor's summaries on {} failed; trying again in {} ms: {}", topic, RETRY_MS,
              e.toString());
          Thread.sleep(RETRY_MS);
        }
      }
    } catch (WakeupException | InterruptedException closing) {
      // close() was called
    } finally {
      consumer.close(Duration.ZERO);
    }
  }

  /** Reads each partition from its latest summary on, for as long as nothing fails. */
  private void follow(String topic, SingleObjectCodec<WindowSummary> codec) throws InterruptedException {
    List<TopicPartition> partitions;
    // The job creates the topic before it starts; a broker may not know it at once.
    while ((partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(info -> new TopicPartition(topic, info.partition())).toList()).isEmpty()) {
      Thread.sleep(RETRY_MS);
    }
    consumer.assign(partitions);
    Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions);
    consumer.endOffsets(partitions).forEach((partition, end) ->
        consumer.seek(partition, Math.max(starts.getOrDefault(partition, 0L), end - 1)));
    while (true) {
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
        try {
          update(codec.decode(record.value()));
        } catch (MalformedRecordException e) {
          LOG.warn("skipping a summary on {} that does not decode: {}", topic, e.getMessage());
        }
      }
    }
  }

  @Override
  public void close() {
    if (follower != null) {
      consumer.wakeup();
      try {
        follower.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
