package io.evenkeel.benchmarks.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.embedded.MariaDbServer;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * CDC from binlog to searchable, as a user meets it: a private MariaDB with a row binlog, and {@code bin/evenkeel local
 * --cdc} capturing one of its tables. First a bulk of rows written to MariaDB as fast as it takes them: rows per
 * second from the first insert to the last row searchable by SQL. Then a steady rate for a while, with a probe row
 * every 250 ms: the lag from a probe's commit in MariaDB to its row being found by SQL, p50 and p99. Prints a
 * Markdown table and writes it with a PNG of the probes' lag to {@code --out}.
 */
@Command(name = "cdc-benchmark", mixinStandardHelpOptions = true,
    description = "MariaDB binlog -> Debezium -> Kafka -> Flink -> shards, searchable by SQL: throughput and lag.")
public final class CdcBenchmark implements Callable<Integer> {
  private static final long PROBE_TENANT = 999_999;
  private static final int TENANTS = 500;
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
  private static final DateTimeFormatter SQL_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  @Option(names = "--rows", defaultValue = "200000", description = "Rows of the bulk phase (default: ${DEFAULT-VALUE}).")
  int rows;

  @Option(names = "--rate", defaultValue = "2000", description = "Rows/s of the steady phase (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--steady-seconds", defaultValue = "60", description = "(default: ${DEFAULT-VALUE})")
  int steadySeconds;

  @Option(names = "--repo", defaultValue = ".", description = "The Evenkeel checkout (default: the current directory).")
  Path repo;

  @Option(names = "--out", defaultValue = "benchmarks/results",
      description = "Where the Markdown and the PNG go (default: ${DEFAULT-VALUE}).")
  Path out;

  private EvenkeelPeer stack;
  private long nextRow;

  public static void main(String[] args) {
    System.exit(new CommandLine(new CdcBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (!MariaDbServer.installed()) {
      System.err.println("cdc-benchmark needs mariadbd (apt-get install mariadb-server)");
      return 2;
    }
    Path work = Files.createTempDirectory("evenkeel-cdc-benchmark");
    Random random = new Random(17);
    try (MariaDbServer mariadb = MariaDbServer.start(work.resolve("mariadb"), true);
        Connection source = DriverManager.getConnection(mariadb.url("", MariaDbServer.ADMIN))) {
      try (Statement statement = source.createStatement()) {
        statement.execute("CREATE DATABASE shop");
        statement.execute("CREATE TABLE shop.orders (seller_id BIGINT NOT NULL, order_id BIGINT NOT NULL,"
            + " created_at DATETIME(3) NOT NULL, status INT, buyer_nick VARCHAR(64), title VARCHAR(255),"
            + " price DECIMAL(18, 2), quantity INT, PRIMARY KEY (seller_id, order_id))");
      }
      System.out.println("starting bin/evenkeel local --cdc ...");
      try (EvenkeelPeer started = EvenkeelPeer.start(repo.toAbsolutePath(), work.resolve("evenkeel"), List.of(
          "--cdc", mariadb.url("shop", MariaDbServer.CDC), "--cdc-table", "orders",
          "--cdc-columns", "tenant_id=seller_id,row_id=order_id,created_time=created_at"))) {
        stack = started;

        // Bulk: as fast as MariaDB takes them, 1,000 rows a transaction.
        long bulkStart = System.nanoTime();
        source.setAutoCommit(false);
        try (PreparedStatement insert = insert(source)) {
          for (int i = 0; i < rows; i++) {
            add(insert, 1 + random.nextInt(TENANTS), random);
            if (i % 1_000 == 999 || i == rows - 1) {
              insert.executeBatch();
              source.commit();
            }
            if (i % 50_000 == 49_999) {
              System.out.printf("  %,d rows written to MariaDB%n", i + 1);
            }
          }
        }
        double writtenS = (System.nanoTime() - bulkStart) / 1e9;
        while (count("SELECT COUNT(*) FROM transaction_logs") < rows) {
          Thread.sleep(100);
        }
        double searchableS = (System.nanoTime() - bulkStart) / 1e9;
        System.out.printf("bulk: %,d rows written to MariaDB in %.1f s, all searchable after %.1f s: %,.0f rows/s%n",
            rows, writtenS, searchableS, rows / searchableS);

        // Steady: the rate in 20 transactions a second, and a probe row every 250 ms.
        Map<Long, Long> committed = new ConcurrentHashMap<>();
        List<double[]> lags = new ArrayList<>();
        Thread watcher = new Thread(() -> watch(committed, lags), "probe-watcher");
        watcher.setDaemon(true);
        watcher.start();
        long steadyStart = System.nanoTime();
        long tick = 0;
        try (PreparedStatement insert = insert(source)) {
          while (System.nanoTime() - steadyStart < steadySeconds * 1_000_000_000L) {
            for (int i = 0; i < rate / 20; i++) {
              add(insert, 1 + random.nextInt(TENANTS), random);
            }
            long probe = tick % 5 == 0 ? add(insert, PROBE_TENANT, random) : -1;
            insert.executeBatch();
            source.commit();
            if (probe >= 0) {
              committed.put(probe, System.nanoTime());
            }
            tick++;
            long next = steadyStart + tick * 50_000_000L;
            Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
          }
        }
        long waitUntil = System.nanoTime() + 60_000_000_000L;
        while (!committed.isEmpty() && System.nanoTime() < waitUntil) {
          Thread.sleep(100);
        }
        watcher.interrupt();
        List<Double> sorted;
        synchronized (lags) {
          sorted = lags.stream().map(l -> l[1]).sorted().toList();
        }
        double p50 = sorted.get(sorted.size() / 2);
        double p99 = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
        System.out.printf("steady %,d rows/s for %d s: %d probes, lag p50 %.0f ms, p99 %.0f ms, max %.0f ms%s%n",
            rate, steadySeconds, sorted.size(), p50, p99, sorted.get(sorted.size() - 1),
            committed.isEmpty() ? "" : " (" + committed.size() + " probes never seen)");
        write(rows, writtenS, searchableS, sorted.size(), p50, p99, committed.size(), lags);
      }
    }
    return 0;
  }

  private static PreparedStatement insert(Connection source) throws Exception {
    return source.prepareStatement("INSERT INTO shop.orders VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  }

  /** Adds a row of {@code tenant} to the batch; returns its id. */
  private long add(PreparedStatement insert, long tenant, Random random) throws Exception {
    long row = nextRow++;
    insert.setLong(1, tenant);
    insert.setLong(2, row);
    // DATETIME read as UTC (the stack's --cdc-datetime-zone default): the machine's clock is UTC here.
    insert.setString(3, LocalDateTime.now(java.time.ZoneOffset.UTC).minusSeconds(random.nextInt(86_400))
        .format(SQL_TIME));
    insert.setInt(4, random.nextInt(5));
    insert.setString(5, "buyer-" + random.nextInt(10_000));
    insert.setString(6, "item " + row + " wool scarf");
    insert.setBigDecimal(7, java.math.BigDecimal.valueOf(random.nextInt(100_000), 2));
    insert.setInt(8, 1 + random.nextInt(5));
    insert.addBatch();
    return row;
  }

  /** Polls for the probes every 50 ms; a probe's lag is from its commit to the first answer that holds it. */
  private void watch(Map<Long, Long> committed, List<double[]> lags) {
    long start = System.nanoTime();
    while (!Thread.currentThread().isInterrupted()) {
      try {
        if (!committed.isEmpty()) {
          JsonNode found = rows("SELECT row_id FROM transaction_logs WHERE tenant_id = " + PROBE_TENANT
              + " ORDER BY row_id DESC LIMIT 100");
          long now = System.nanoTime();
          for (JsonNode row : found) {
            Long at = committed.remove(row.get(0).asLong());
            if (at != null) {
              synchronized (lags) {
                lags.add(new double[] {(at - start) / 1e9, (now - at) / 1e6});
              }
            }
          }
        }
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        System.err.println("probe query failed: " + e.getMessage());
      }
    }
  }

  private long count(String sql) throws IOException, InterruptedException {
    return rows(sql).get(0).get(0).asLong();
  }

  private JsonNode rows(String sql) throws IOException, InterruptedException {
    return stack.rows(sql, List.of());
  }

  private void write(int bulkRows, double writtenS, double searchableS, int probes, double p50, double p99,
      int unseen, List<double[]> lags) throws IOException {
    Files.createDirectories(out);
    String name = "cdc-" + LocalDateTime.now().format(STAMP);
    XYSeries series = new XYSeries("probe lag");
    synchronized (lags) {
      lags.forEach(l -> series.add(l[0], l[1]));
    }
    JFreeChart chart = ChartFactory.createScatterPlot("CDC lag at " + rate + " rows/s: MariaDB commit to found by SQL",
        "seconds into the steady phase", "lag (ms)", new XYSeriesCollection(series));
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ChartUtils.saveChartAsPNG(out.resolve(name + ".png").toFile(), chart, 900, 420);
    String markdown = String.format("""
        # CDC: MariaDB binlog to searchable (%s)

        `java -cp benchmarks/target/benchmarks.jar io.evenkeel.benchmarks.cdc.CdcBenchmark` (--rows %d --rate %d
        --steady-seconds %d): a private MariaDB with a row binlog; `bin/evenkeel local --cdc` (its defaults: 2 shard
        servers, 8 shards, one replica each, refresh every second) capturing `shop.orders`; everything on this
        machine (2 cores).

        | figure | value |
        |---|---|
        | bulk: rows written to MariaDB (1,000 per transaction) | %,d in %.1f s (%,.0f rows/s) |
        | bulk: first insert to every row searchable | %.1f s: **%,.0f rows/s** |
        | steady %,d rows/s for %d s: probes (one per 250 ms) | %d seen%s |
        | steady: lag from commit to found by SQL, p50 / p99 | **%.0f ms / %.0f ms** |

        ![probe lag](%s.png)
        """, LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME), bulkRows, rate, steadySeconds,
        bulkRows, writtenS, bulkRows / writtenS, searchableS, bulkRows / searchableS, rate, steadySeconds, probes,
        unseen == 0 ? "" : ", " + unseen + " never seen", p50, p99, name);
    Files.writeString(out.resolve(name + ".md"), markdown);
    System.out.println(markdown);
    System.out.println("written to " + out.resolve(name + ".md"));
  }
}
