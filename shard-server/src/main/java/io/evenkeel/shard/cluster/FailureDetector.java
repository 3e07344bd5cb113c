package io.evenkeel.shard.cluster;

import io.evenkeel.cluster.state.ClusterStateClient;
import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a shard server whose process is gone sooner than ZooKeeper does. A server's registration is an ephemeral
 * znode that outlives a killed process by its session timeout (10 s by default), and until it goes the server's
 * primaries take no writes. So the master connects to every other server's port, and every other server to the
 * master's, each {@link #INTERVAL_MS} ms: a connection refused {@link #REFUSALS} times in a row means the host
 * answered that no process listens there, and the gone server's registration and place in the master election are
 * removed ({@link ClusterStateClient#removeGoneServer}): its shards' replicas are promoted, and a new master elected,
 * at once. A connection that is slow or times out proves nothing (a busy or paused process, a lost host or network):
 * then only the session's expiry decides, so a live primary that is only slow keeps its shards. Elasticsearch's
 * follower and leader checks likewise fail a node at once on a refused connection, and only after retries on
 * timeouts.
 */
final class FailureDetector implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(FailureDetector.class);
  static final long INTERVAL_MS = 500;
  static final int REFUSALS = 2;
  /** A connection not made by then counts as neither listening nor refused. */
  private static final int CONNECT_TIMEOUT_MS = 1_000;

  private enum Answer { LISTENING, REFUSED, UNKNOWN }

  /** Refusals in a row from the server registered by {@code session}. */
  private record Refusals(long session, int times) {}

  private final ClusterStateClient cluster;
  private final Supplier<Collection<String>> watched;
  /** Touched by the detector's thread only. */
  private final Map<String, Refusals> refusals = new HashMap<>();
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "failure-detector");
    thread.setDaemon(true);
    return thread;
  });

  /** @param watched the servers to check now (their host:port addresses), asked before each round */
  FailureDetector(ClusterStateClient cluster, Supplier<Collection<String>> watched) {
    this.cluster = cluster;
    this.watched = watched;
  }

  void start() {
    executor.scheduleWithFixedDelay(this::checkAll, INTERVAL_MS, INTERVAL_MS, TimeUnit.MILLISECONDS);
  }

  private void checkAll() {
    try {
      Collection<String> servers = watched.get();
      refusals.keySet().retainAll(servers);
      for (String server : servers) {
        check(server);
      }
    } catch (Exception e) {
      LOG.warn("failure detection failed this round: {}", e.toString());
    }
  }

  private void check(String server) throws Exception {
    Answer answer = connect(server);
    if (answer != Answer.REFUSED) {
      if (answer == Answer.LISTENING) {
        refusals.remove(server);
      }
      return;
    }
    long session = cluster.registrationSession(server);
    if (session == 0) {
      refusals.remove(server);
      return;
    }
    Refusals before = refusals.get(server);
    int times = before != null && before.session() == session ? before.times() + 1 : 1;
    if (times < REFUSALS) {
      refusals.put(server, new Refusals(session, times));
      return;
    }
    refusals.remove(server);
    if (cluster.removeGoneServer(server, session)) {
      LOG.warn("{} refused {} connections in a row, {} ms apart: its process is gone, and it leaves the cluster now"
          + " rather than when its ZooKeeper session expires", server, times, INTERVAL_MS);
    }
  }

  private static Answer connect(String server) {
    int colon = server.lastIndexOf(':');
    if (colon < 0) {
      return Answer.UNKNOWN;
    }
    String host = server.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, Integer.parseInt(server.substring(colon + 1))), CONNECT_TIMEOUT_MS);
      return Answer.LISTENING;
    } catch (ConnectException e) {
      // "Connection refused": the host reset the connection. A ConnectException that timed out proves nothing.
      return e.getMessage() != null && e.getMessage().contains("refused") ? Answer.REFUSED : Answer.UNKNOWN;
    } catch (IOException | IllegalArgumentException e) {
      return Answer.UNKNOWN;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
