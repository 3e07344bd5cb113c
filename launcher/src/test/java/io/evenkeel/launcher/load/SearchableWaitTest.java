package io.evenkeel.launcher.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.evenkeel.launcher.sql.SqlClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The refresh that ends {@code load --wait}, against a service that answers as a failing-over cluster does. */
class SearchableWaitTest {
  private HttpServer server;
  private final Deque<Integer> statuses = new ArrayDeque<>();
  private int refreshes;

  private SqlClient serviceAnswering(Integer... answers) throws IOException {
    statuses.addAll(List.of(answers));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/refresh", exchange -> {
      refreshes++;
      int status = statuses.isEmpty() ? 200 : statuses.poll();
      byte[] body = (status == 200 ? "{\"shards\": 8}" : "{\"error\": \"4 of 8 shards failed\"}")
          .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return new SqlClient("http://127.0.0.1:" + server.getAddress().getPort(), null, null);
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void shardsThatCannotAnswerYetAreAskedAgainUntilTheyDo() throws Exception {
    SqlClient sql = serviceAnswering(504, 504, 503, 429);
    SearchableWait.refresh(sql, System.nanoTime() + TimeUnit.SECONDS.toNanos(60), new PrintStream(
        new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(refreshes).isEqualTo(5);
  }

  @Test
  void aRefusalThatWillNotChangeIsReportedAtOnce() throws Exception {
    SqlClient sql = serviceAnswering(403);
    assertThatThrownBy(() -> SearchableWait.refresh(sql, System.nanoTime() + TimeUnit.SECONDS.toNanos(60),
        System.out)).isInstanceOf(IOException.class).hasMessageContaining("error 403");
    assertThat(refreshes).isEqualTo(1);
  }

  @Test
  void shardsThatNeverAnswerFailTheWaitAtItsDeadline() throws Exception {
    SqlClient sql = serviceAnswering(504, 504, 504, 504, 504, 504, 504, 504);
    assertThatThrownBy(() -> SearchableWait.refresh(sql, System.nanoTime() + TimeUnit.SECONDS.toNanos(1),
        System.out)).isInstanceOf(IOException.class).hasMessageContaining("error 504: 4 of 8 shards failed");
    assertThat(refreshes).isBetween(2, 4);
  }
}
