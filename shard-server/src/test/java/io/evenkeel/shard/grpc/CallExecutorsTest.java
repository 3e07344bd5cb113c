package io.evenkeel.shard.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallExecutorsTest {
  @Test
  void writesReadsAndReplicationRunOnPoolsOfTheirOwn() throws Exception {
    try (CallExecutors executors = new CallExecutors(2)) {
      assertThat(threadOf(executors, ShardServiceGrpc.getWriteMethod())).startsWith("grpc-writes-");
      assertThat(threadOf(executors, ShardServiceGrpc.getSearchShardsMethod())).startsWith("grpc-reads-");
      assertThat(threadOf(executors, ShardServiceGrpc.getStatsMethod())).startsWith("grpc-replication-");
      assertThat(threadOf(executors, ShardServiceGrpc.getRefreshShardsMethod())).startsWith("grpc-replication-");
      assertThat(threadOf(executors, ReplicationServiceGrpc.getReplicateMethod())).startsWith("grpc-replication-");

      // Every read thread busy: a write, and a promotion's Stats, still run at once.
      CountDownLatch release = new CountDownLatch(1);
      for (int i = 0; i < 2; i++) {
        executors.getExecutor(call(ShardServiceGrpc.getSearchShardsMethod()), new Metadata()).execute(() -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      try {
        assertThat(threadOf(executors, ShardServiceGrpc.getWriteMethod())).startsWith("grpc-writes-");
        assertThat(threadOf(executors, ShardServiceGrpc.getStatsMethod())).startsWith("grpc-replication-");
      } finally {
        release.countDown();
      }
    }
  }

  private static String threadOf(CallExecutors executors, MethodDescriptor<?, ?> method) throws Exception {
    CompletableFuture<String> thread = new CompletableFuture<>();
    executors.getExecutor(call(method), new Metadata()).execute(() -> thread.complete(Thread.currentThread()
        .getName()));
    return thread.get(10, TimeUnit.SECONDS);
  }

  private static <ReqT, RespT> ServerCall<ReqT, RespT> call(MethodDescriptor<ReqT, RespT> method) {
    return new ServerCall<>() {
      @Override
      public void request(int numMessages) {}

      @Override
      public void sendHeaders(Metadata headers) {}

      @Override
      public void sendMessage(RespT message) {}

      @Override
      public void close(Status status, Metadata trailers) {}

      @Override
      public boolean isCancelled() {
        return false;
      }

      @Override
      public Attributes getAttributes() {
        return Attributes.EMPTY;
      }

      @Override
      public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
        return method;
      }
    };
  }
}
