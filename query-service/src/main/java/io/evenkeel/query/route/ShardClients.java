package io.evenkeel.query.route;

import com.google.common.util.concurrent.ListenableFuture;
import io.evenkeel.query.QueryException;
import io.evenkeel.query.ShardFailure;
import io.evenkeel.router.placement.ShardAddress;
import io.evenkeel.router.placement.ShardPlacement;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * Calls shards in parallel, each on the server the placement names as its primary, all under one deadline. A shard
 * that does not answer in time, is unreachable or has no known primary is a {@link ShardFailure}; the caller decides
 * whether a partial answer will do. A shard that rejects the query as invalid makes the whole query a 400.
 */
public final class ShardClients implements AutoCloseable {
  /** Rows of a full fetch can be large: up to 100,000 rows per shard. */
  private static final int MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

  private final ShardPlacement placement;
  private final Map<ShardAddress, ManagedChannel> channels = new ConcurrentHashMap<>();

  public ShardClients(ShardPlacement placement) {
    this.placement = placement;
    // Connect now: a channel connects lazily, and on a loaded machine the first query's deadline could pass while
    // it is still connecting to every server.
    placement.primaries().values().stream().distinct().forEach(address -> channel(address).getState(true));
  }

  /** The answers that came, by shard, and the shards that failed. */
  public record FanOut<T>(Map<Integer, T> responses, List<ShardFailure> failures) {}

  public <T> FanOut<T> call(int[] shards, Deadline deadline,
      BiFunction<ShardServiceGrpc.ShardServiceFutureStub, Integer, ListenableFuture<T>> call) {
    Map<Integer, ListenableFuture<T>> pending = new LinkedHashMap<>();
    Map<Integer, ShardAddress> addresses = new LinkedHashMap<>();
    List<ShardFailure> failures = new ArrayList<>();
    for (int shard : shards) {
      Optional<ShardAddress> address = placement.primaryOf(shard);
      if (address.isEmpty()) {
        failures.add(new ShardFailure(shard, "-", "no primary is known for this shard"));
        continue;
      }
      addresses.put(shard, address.get());
      var stub = ShardServiceGrpc.newFutureStub(channel(address.get())).withDeadline(deadline);
      pending.put(shard, call.apply(stub, shard));
    }
    Map<Integer, T> responses = new LinkedHashMap<>();
    for (Map.Entry<Integer, ListenableFuture<T>> entry : pending.entrySet()) {
      int shard = entry.getKey();
      String address = addresses.get(shard).toString();
      try {
        // gRPC fails the call at the deadline; the extra second only guards against a lost callback.
        long waitMs = Math.max(0, deadline.timeRemaining(TimeUnit.MILLISECONDS)) + 1_000;
        responses.put(shard, entry.getValue().get(waitMs, TimeUnit.MILLISECONDS));
      } catch (ExecutionException e) {
        Status status = Status.fromThrowable(e.getCause());
        if (status.getCode() == Status.Code.INVALID_ARGUMENT) {
          throw QueryException.invalid("shard " + shard + " rejected the query: " + status.getDescription());
        }
        failures.add(new ShardFailure(shard, address, status.getCode()
            + (status.getDescription() == null ? "" : ": " + status.getDescription())));
      } catch (TimeoutException e) {
        entry.getValue().cancel(true);
        failures.add(new ShardFailure(shard, address, "no answer before the deadline"));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for shard " + shard, e);
      }
    }
    failures.sort((a, b) -> Integer.compare(a.shard(), b.shard()));
    return new FanOut<>(responses, failures);
  }

  private ManagedChannel channel(ShardAddress address) {
    return channels.computeIfAbsent(address, a -> Grpc
        .newChannelBuilderForAddress(a.host(), a.port(), InsecureChannelCredentials.create())
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .build());
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
