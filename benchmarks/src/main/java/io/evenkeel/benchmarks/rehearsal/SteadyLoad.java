package io.evenkeel.benchmarks.rehearsal;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.workload.ChangeProducer;
import io.evenkeel.workload.RowGenerator;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjLongConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * New rows at a steady rate into the ingest topic, as a producer of a deployment writes them: {@code acks=all}
 * (idempotent), keyed {@code tenant:row}, waiting out a lost broker rather than failing (two minutes to deliver).
 * Rows are the benchmarks' {@link RowGenerator} rows with row ids from {@code firstRowId} on, each sent once, so the
 * rows a table holds can be checked by SQL against what Kafka acknowledged. The listener hears of each row as it is
 * sent (a {@code SearchableWatch} takes probes from them).
 */
public final class SteadyLoad implements AutoCloseable {
  private final ChangeProducer producer;
  private final RowGenerator rows;
  private final long firstRowId;
  private final double perSecond;
  private final ObjLongConsumer<TransactionLogChange> listener;
  private final Thread sender;
  private volatile boolean stopping;
  private volatile long sent;

  /** Starts sending {@code perSecond} rows a second to {@code topic} at {@code bootstrapServers}. */
  public SteadyLoad(String bootstrapServers, String topic, long seed, int tenants, long firstRowId, double perSecond,
      ObjLongConsumer<TransactionLogChange> listener) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000);
    // Kafka's default batch size.
    this.producer = new ChangeProducer(bootstrapServers, properties, topic, "rehearsal-load", 16 * 1024);
    this.rows = new RowGenerator(seed, tenants, 1.0);
    this.firstRowId = firstRowId;
    this.perSecond = perSecond;
    this.listener = listener;
    this.sender = new Thread(this::send, "steady-load");
    sender.setDaemon(true);
    sender.start();
  }

  private void send() {
    long started = System.nanoTime();
    for (long n = 0; !stopping; n++) {
      TransactionLogChange change = TransactionLogChange.newBuilder(rows.next()).setRowId(firstRowId + n).build();
      long now = System.nanoTime();
      producer.send(change);
      sent = n + 1;
      listener.accept(change, now);
      long ahead = (long) ((n + 1) * 1e9 / perSecond) - (System.nanoTime() - started);
      if (ahead > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(ahead);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** Stops sending and waits until Kafka has answered for every row sent. */
  public void stop() throws InterruptedException {
    stopping = true;
    sender.join();
    try {
      producer.flush();
    } catch (IllegalStateException failedSends) {
      // Counted: failed() and firstFailure() say how many and why.
    }
  }

  /** The first row id sent; the rows sent have ids {@code firstRowId() .. firstRowId() + sent() - 1}. */
  public long firstRowId() {
    return firstRowId;
  }

  public long sent() {
    return sent;
  }

  /** Rows Kafka acknowledged (written to {@code min.insync.replicas} nodes). */
  public long acknowledged() {
    return producer.acknowledged();
  }

  /** Rows whose send failed: Kafka may or may not hold them. */
  public long failed() {
    return producer.failedSends();
  }

  /** The first failed send's cause, or null. */
  public Exception firstFailure() {
    return producer.firstFailure();
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    sender.join();
    producer.close();
  }
}
