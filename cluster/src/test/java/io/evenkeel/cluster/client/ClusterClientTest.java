package io.evenkeel.cluster.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A shard server restarted on its address is reachable by the next call, however long its channel had failed to
 * connect before: the channel's growing reconnect backoff does not keep failing calls to a server that is back.
 */
class ClusterClientTest {
  @Test
  void aServerRestartedOnItsAddressAnswersTheNextCall() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    ShardAddress address = new ShardAddress("127.0.0.1", port);
    try (ClusterClient client = new ClusterClient()) {
      Server server = start(port);
      assertThat(stats(client, address).getShard()).isEqualTo(7);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);

      // Down for a few seconds: the channel's reconnect backoff grows past a second (1 s, 1.6 s, 2.6 s, ...).
      long down = System.nanoTime();
      while (System.nanoTime() - down < TimeUnit.SECONDS.toNanos(5)) {
        assertThatThrownBy(() -> stats(client, address)).isInstanceOf(StatusRuntimeException.class);
        Thread.sleep(200);
      }

      server = start(port);
      try {
        assertThat(stats(client, address).getShard()).as("the first call after the restart").isEqualTo(7);
      } finally {
        server.shutdownNow();
      }
    }
  }

  private static ShardStats stats(ClusterClient client, ShardAddress address) {
    return client.blockingStub(address).withDeadlineAfter(2, TimeUnit.SECONDS)
        .stats(StatsRequest.newBuilder().setShard(7).build());
  }

  private static Server start(int port) throws IOException {
    return Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(new ShardServiceGrpc.ShardServiceImplBase() {
          @Override
          public void stats(StatsRequest request, StreamObserver<ShardStats> answer) {
            answer.onNext(ShardStats.newBuilder().setShard(request.getShard()).build());
            answer.onCompleted();
          }
        }).build().start();
  }
}
