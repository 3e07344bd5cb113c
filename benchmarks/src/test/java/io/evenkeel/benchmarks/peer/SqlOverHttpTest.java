package io.evenkeel.benchmarks.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.evenkeel.embedded.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several query services: SQL goes to one while it answers, to the next when it cannot be reached or says 503, and a
 * service's other answers (a 400, a tenant's 429) are the caller's.
 */
class SqlOverHttpTest {
  private final List<HttpServer> servers = new ArrayList<>();

  /** A service answering every {@code POST /sql} with {@code status} and {@code body}, counting what it was asked. */
  private String service(int status, String body, AtomicInteger asked) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/sql", exchange -> {
      asked.incrementAndGet();
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    servers.add(server);
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    servers.forEach(server -> server.stop(0));
  }

  @Test
  void aServiceThatCannotBeReachedOrIsStoppingHandsTheQueryToTheNext() throws Exception {
    String gone = "http://127.0.0.1:" + FreePorts.one();
    AtomicInteger stoppingAsked = new AtomicInteger();
    AtomicInteger answeringAsked = new AtomicInteger();
    String stopping = service(503, "{\"error\": \"shutting down\"}", stoppingAsked);
    String answering = service(200, "{\"rows\": [[42]]}", answeringAsked);
    SqlOverHttp sql = new SqlOverHttp(List.of(gone, stopping, answering));

    assertThat(sql.rows("SELECT COUNT(*) FROM transaction_logs", List.of()).get(0).get(0).asLong()).isEqualTo(42);
    // The one that answered is asked first from then on.
    assertThat(sql.rows("SELECT 1", List.of()).get(0).get(0).asLong()).isEqualTo(42);
    assertThat(stoppingAsked).hasValue(1);
    assertThat(answeringAsked).hasValue(2);
  }

  @Test
  void otherAnswersAreTheCallersAndNoServiceAnsweringFails() throws Exception {
    AtomicInteger nextAsked = new AtomicInteger();
    String refusing = service(400, "{\"error\": \"no such column\"}", new AtomicInteger());
    SqlOverHttp sql = new SqlOverHttp(List.of(refusing, service(200, "{\"rows\": []}", nextAsked)));
    assertThatThrownBy(() -> sql.rows("SELECT nope FROM transaction_logs", List.of()))
        .isInstanceOf(IOException.class).hasMessageContaining("400").hasMessageContaining("no such column");
    assertThat(nextAsked).hasValue(0);

    SqlOverHttp none = new SqlOverHttp(List.of("http://127.0.0.1:" + FreePorts.one(),
        "http://127.0.0.1:" + FreePorts.one()));
    assertThatThrownBy(() -> none.rows("SELECT 1", List.of())).isInstanceOf(IOException.class);
  }
}
