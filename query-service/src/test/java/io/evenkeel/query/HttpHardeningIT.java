package io.evenkeel.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.query.optimize.OptimizerSettings;
import io.evenkeel.query.testing.SqlClient;
import io.evenkeel.query.testing.TestCluster;
import io.evenkeel.query.testing.TestRows;
import io.evenkeel.router.policy.RoutingPolicy;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query service's HTTP side against clients that are slow or not who they say: 250 connections trickling their
 * bodies do not keep {@code /health} or a query from answering, and each is answered 408 and closed once it falls
 * below the minimum rate; a request to a name that is not the service's (DNS rebinding) or from another site's page
 * (or a page that hides its origin) is a 403 before anything is run.
 */
class HttpHardeningIT {
  private static final int TRICKLERS = 250;

  @TempDir Path dir;

  @Test
  void trickledBodiesTakeNoThreadFromOtherClients() throws Exception {
    try (TestCluster cluster = TestCluster.start(dir, RoutingPolicy.hashing(8), 1)) {
      Random random = new Random(5);
      List<TransactionLogChange> rows = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        rows.add(TestRows.random(random, 1 + random.nextInt(10), i, 5));
      }
      cluster.write(rows);
      SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(10));
      assertThat(client.sql("SELECT COUNT(*) FROM transaction_logs").status()).isEqualTo(200);

      List<Socket> sockets = new ArrayList<>();
      AtomicBoolean trickling = new AtomicBoolean(true);
      Thread trickler = new Thread(() -> {
        // One byte of each body a second: each resets an idle timeout, none reaches the minimum rate.
        while (trickling.get()) {
          for (Socket socket : sockets) {
            try {
              socket.getOutputStream().write(' ');
              socket.getOutputStream().flush();
            } catch (IOException cutOff) {
              // The service cut it off: what it should do.
            }
          }
          try {
            Thread.sleep(1_000);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "trickler");
      try {
        for (int i = 0; i < TRICKLERS; i++) {
          Socket socket = new Socket("127.0.0.1", client.port());
          socket.getOutputStream().write(("POST /sql HTTP/1.1\r\nHost: 127.0.0.1:" + client.port()
              + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"sql\": \"SELECT ")
              .getBytes(StandardCharsets.US_ASCII));
          sockets.add(socket);
        }
        trickler.start();
        List<Long> healthMs = new ArrayList<>();
        List<Long> queryMs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          long started = System.nanoTime();
          assertThat(client.get("/health").status()).isEqualTo(200);
          healthMs.add((System.nanoTime() - started) / 1_000_000);
          started = System.nanoTime();
          SqlClient.Answer answer = client.sql("SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 3");
          queryMs.add((System.nanoTime() - started) / 1_000_000);
          assertThat(answer.status()).as(answer.body().toString()).isEqualTo(200);
          Thread.sleep(200);
        }
        System.out.printf("with %d connections trickling their bodies: /health in %s ms, a query in %s ms%n",
            TRICKLERS, healthMs, queryMs);
        assertThat(median(healthMs)).as("/health, median ms").isLessThan(1_000);
        assertThat(median(queryMs)).as("a query, median ms").isLessThan(1_000);
        // Below the minimum rate past the grace, each trickler got a 408 and its connection closed.
        for (Socket socket : sockets) {
          socket.setSoTimeout(60_000);
          String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
          assertThat(answer).startsWith("HTTP/1.1 408").contains("bytes/s; at least 1024 are needed");
        }
      } finally {
        trickling.set(false);
        trickler.interrupt();
        trickler.join();
        for (Socket socket : sockets) {
          socket.close();
        }
      }
    }
  }

  @Test
  void otherNamesAndOtherSitesPagesAreRefused() throws Exception {
    try (TestCluster cluster = TestCluster.start(dir, RoutingPolicy.hashing(8), 1)) {
      SqlClient client = cluster.startService(OptimizerSettings.defaults(), Duration.ofSeconds(10));
      String query = "{\"sql\": \"SELECT COUNT(*) FROM transaction_logs\"}";
      // A name of the attacker's, pointed at 127.0.0.1: a page of its site would read the answer as its own.
      assertThat(raw(client.port(), "POST /sql", "rebound.example:" + client.port(), null, query))
          .startsWith("HTTP/1.1 403").contains("not to Host: rebound.example");
      assertThat(raw(client.port(), "GET /cluster", "rebound.example", null, "")).startsWith("HTTP/1.1 403");
      // A page of another site posting to the service.
      assertThat(raw(client.port(), "POST /sql", "127.0.0.1:" + client.port(), "http://evil.example", query))
          .startsWith("HTTP/1.1 403").contains("a page from http://evil.example may not call this service");
      assertThat(raw(client.port(), "POST /sql", "127.0.0.1:" + client.port(), "null", query))
          .startsWith("HTTP/1.1 403");
      // The service's own names and its own pages.
      assertThat(raw(client.port(), "POST /sql", "localhost:" + client.port(), null, query))
          .startsWith("HTTP/1.1 200");
      HttpResponse<String> ownPage = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + client.port() + "/sql"))
          .header("Origin", "http://127.0.0.1:" + client.port()).POST(HttpRequest.BodyPublishers.ofString(query))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ownPage.statusCode()).as(ownPage.body()).isEqualTo(200);
    }
  }

  /** One HTTP/1.1 request written by hand (Java's client sets Host itself), and the answer's text. */
  private static String raw(int port, String requestLine, String host, String origin, String body)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      byte[] content = body.getBytes(StandardCharsets.UTF_8);
      String head = requestLine + " HTTP/1.1\r\nHost: " + host + "\r\n" + (origin == null ? "" : "Origin: " + origin
          + "\r\n") + "Content-Type: application/json\r\nContent-Length: " + content.length
          + "\r\nConnection: close\r\n\r\n";
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(content);
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static long median(List<Long> values) {
    return values.stream().sorted().toList().get(values.size() / 2);
  }
}
