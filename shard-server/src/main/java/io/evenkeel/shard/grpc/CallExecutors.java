package io.evenkeel.shard.grpc;

import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a shard server's calls run on, one pool per kind, so that a flood of one kind cannot take the threads
 * of another: searches and fetches cannot hold up writes, and neither can hold up the cluster's own calls:
 * replication, which a primary's own writes wait for on its replicas' servers, {@code Stats}, which a promotion or a
 * handover asks every copy for, and {@code RefreshShards}, which makes a load searchable. Writes and reads have a fixed number of threads each (more calls of
 * the kind queue for them); the cluster's calls, which can wait on each other across servers (a copy job reads files
 * from the server that asked for it), get a thread each, as gRPC's default executor gives every call, so they can
 * never deadlock on a full pool.
 */
public final class CallExecutors implements ServerCallExecutorSupplier, AutoCloseable {
  private final ExecutorService writes;
  private final ExecutorService reads;
  private final ExecutorService replication;

  /** {@code threads} for writes, as many for reads. */
  public CallExecutors(int threads) {
    this.writes = Executors.newFixedThreadPool(threads, named("grpc-writes"));
    this.reads = Executors.newFixedThreadPool(threads, named("grpc-reads"));
    this.replication = Executors.newCachedThreadPool(named("grpc-replication"));
  }

  @Override
  public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata metadata) {
    String method = call.getMethodDescriptor().getFullMethodName();
    if (method.equals(ShardServiceGrpc.getWriteMethod().getFullMethodName())) {
      return writes;
    }
    if (ReplicationServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName())
        || method.equals(ShardServiceGrpc.getStatsMethod().getFullMethodName())
        || method.equals(ShardServiceGrpc.getRefreshShardsMethod().getFullMethodName())) {
      return replication;
    }
    return reads;
  }

  private static ThreadFactory named(String name) {
    AtomicInteger next = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Stops the pools once the server has stopped: calls still running finish. */
  @Override
  public void close() {
    List.of(writes, reads, replication).forEach(ExecutorService::shutdown);
  }
}
