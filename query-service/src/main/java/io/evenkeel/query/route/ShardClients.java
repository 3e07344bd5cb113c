package io.evenkeel.query.route;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.MessageLite;
import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.client.ReadParty;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.placement.ShardPlacement;
import io.evenkeel.query.result.QueryException;
import io.evenkeel.query.result.ShardFailure;
import io.evenkeel.schemas.shard.FetchRequest;
import io.evenkeel.schemas.shard.FetchResponse;
import io.evenkeel.schemas.shard.FetchShardsRequest;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.RefreshShardsRequest;
import io.evenkeel.schemas.shard.RowId;
import io.evenkeel.schemas.shard.SearchResponse;
import io.evenkeel.schemas.shard.SearchShardsRequest;
import io.evenkeel.schemas.shard.ShardError;
import io.evenkeel.schemas.shard.ShardRefreshResult;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.Deadline;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * Calls shards in parallel, one call per server the placement names as primary of some of them (carrying all of
 * that server's shards: a loopback call costs about as much as a small shard search), all under one deadline. A shard
 * that does not answer in time, is unreachable or has no known primary is a {@link ShardFailure}; the caller decides
 * whether a partial answer will do. A shard that rejects the query as invalid (or too large for its memory budget)
 * makes the whole query a 400, one whose server's reads hold all the memory they may a 429: the answers are taken as
 * they come, so such a refusal ends the query at once, and the calls still running are cancelled. A server that
 * keeps timing out is not called for a while ({@link ServerBreakers}): its shards fail at once.
 */
public final class ShardClients implements AutoCloseable {
  private static final long MAX_PAUSE_MS = 400;
  /** How a shard server's refusal for its memory budget begins. */
  private static final String MEMORY_REFUSAL = "shard server memory: ";
  /** How a shard server's refusal of a read that found no turn before its deadline begins. */
  private static final String BUSY_REFUSAL = "shard server busy: ";
  /** The least time a call must have had for its timing out to count against its server. */
  private static final long MIN_MS_TO_JUDGE_A_SERVER = 1_000;
  /**
   * What a server that answers says of a shard whose copy is changing place: NOT_FOUND, it holds none (released, or
   * not opened yet); UNAVAILABLE for that shard alone, its copy is closing or reopening in another role. A whole call
   * that fails UNAVAILABLE is a server that does not answer, which no retry helps.
   */
  private static final Set<Status.Code> MOVING_SHARD = Set.of(Status.Code.NOT_FOUND, Status.Code.UNAVAILABLE);
  private static final Set<Status.Code> MOVING_CALL = Set.of(Status.Code.NOT_FOUND);
  /** A whole call that failed so says the server is stalled or gone: its breaker counts it. */
  private static final Set<Status.Code> SERVER_FAILED = Set.of(Status.Code.DEADLINE_EXCEEDED,
      Status.Code.UNAVAILABLE);
  private final ShardPlacement placement;
  private final ClusterClient cluster;
  private final ServerBreakers breakers = new ServerBreakers(System::currentTimeMillis);

  /** Clients of the placement's servers, over mutual TLS with {@code tls} (null: plaintext). */
  public ShardClients(ShardPlacement placement, ClientTls tls) {
    this.placement = placement;
    this.cluster = new ClusterClient(tls);
    // On a loaded machine the first query's deadline could pass while it is still connecting to every server.
    cluster.connect(placement.primaries().values());
  }

  /** The answers that came, by shard, and the shards that failed. */
  public record FanOut<T>(Map<Integer, T> responses, List<ShardFailure> failures) {}

  /** One server's answer to a call, or why the call failed. */
  private record Outcome<R>(ShardAddress server, R response, Throwable failure) {}

  /**
   * Ends the query when {@code who} refused it for a reason no other shard's answer changes: INVALID_ARGUMENT (the
   * query is invalid, or too large for the server's memory budget: a 400) or RESOURCE_EXHAUSTED for memory (the
   * server's reads hold all the memory they may) or for a read that found no turn before the deadline (the party's
   * other reads took its share of the server): a 429, to retry. Other RESOURCE_EXHAUSTED (a full disk, a message over
   * gRPC's size) fail the shards, as any failure does.
   */
  private static void refuseIfTheQueryMust(Status.Code code, String who, String reason) {
    boolean memory = reason != null && reason.startsWith(MEMORY_REFUSAL);
    if (code == Status.Code.INVALID_ARGUMENT) {
      throw QueryException.invalid(who + " rejected the query: " + reason + (memory
          ? "; add a LIMIT, narrow the WHERE clause, or page by a sort key" : ""));
    }
    if (code == Status.Code.RESOURCE_EXHAUSTED && memory) {
      throw QueryException.overloaded(who + " is busy: " + reason + "; retry shortly");
    }
    if (code == Status.Code.RESOURCE_EXHAUSTED && reason != null && reason.startsWith(BUSY_REFUSAL)) {
      throw QueryException.overloaded(who + ": " + reason);
    }
  }

  /** One shard's part of a server's answer: its response, or why it failed. */
  private record ShardResult<T>(int shard, ShardError error, T response) {}

  /**
   * Runs {@code query} on every shard: one call per server, carrying all of that server's shards. {@code party} is
   * whom the query is for (the servers take turns between parties, {@link ReadParty}); {@code answerBytes} takes the
   * size of each server's answer as it comes (it may throw, ending the query).
   */
  public FanOut<SearchResponse> search(int[] shards, Deadline deadline, Query query, String party,
      LongConsumer answerBytes) {
    return perServer(shards, deadline, party, placement::readerOf,
        (stub, serverShards) -> stub.searchShards(SearchShardsRequest.newBuilder().addAllShards(serverShards)
            .setQuery(query).build()),
        response -> response.getResultsList().stream()
            .map(r -> new ShardResult<>(r.getShard(), r.hasError() ? r.getError() : null, r.getResponse())).toList(),
        answerBytes);
  }

  /** Fetches rows by id from each shard: one call per server; {@code answerBytes} as for {@link #search}. */
  public FanOut<FetchResponse> fetch(Map<Integer, List<RowId>> idsByShard, Deadline deadline, String party,
      LongConsumer answerBytes) {
    int[] shards = idsByShard.keySet().stream().mapToInt(Integer::intValue).toArray();
    return perServer(shards, deadline, party, placement::readerOf,
        (stub, serverShards) -> {
          FetchShardsRequest.Builder request = FetchShardsRequest.newBuilder();
          serverShards.forEach(shard -> request.addRequests(
              FetchRequest.newBuilder().setShard(shard).addAllIds(idsByShard.get(shard))));
          return stub.fetchShards(request.build());
        },
        response -> response.getResultsList().stream()
            .map(r -> new ShardResult<>(r.getShard(), r.hasError() ? r.getError() : null, r.getResponse())).toList(),
        answerBytes);
  }

  /**
   * Makes every write acknowledged before the call searchable on each shard's primary: one call per server. (Reads
   * from replicas see them once the replicas have copied the point.)
   */
  public FanOut<ShardRefreshResult> refresh(int[] shards, Deadline deadline) {
    return perServer(shards, deadline, null, placement::primaryOf,
        (stub, serverShards) -> stub.refreshShards(RefreshShardsRequest.newBuilder().addAllShards(serverShards)
            .build()),
        response -> response.getResultsList().stream()
            .map(r -> new ShardResult<>(r.getShard(), r.hasError() ? r.getError() : null, r)).toList(),
        bytes -> { });
  }

  /**
   * Groups the shards by the server {@code locate} names (the primary, or the copy reads prefer), sends one call per
   * server in parallel, all under one deadline, and splits the answers by shard (in the order of {@code shards}). A
   * shard whose copy was changing place (the server no longer holds it, or its copy is closing or reopening: a
   * handover, a promotion, a copy moved to another server) is asked again where the placement names it then, with a
   * growing pause, while the deadline leaves time (a promotion under load replays its translog for a few seconds).
   */
  private <R extends MessageLite, T> FanOut<T> perServer(int[] shards, Deadline deadline, String party,
      IntFunction<Optional<ShardAddress>> locate,
      BiFunction<ShardServiceGrpc.ShardServiceFutureStub, List<Integer>, ListenableFuture<R>> call,
      Function<R, List<ShardResult<T>>> results, LongConsumer answerBytes) {
    Map<Integer, T> answered = new HashMap<>();
    List<ShardFailure> failures = new ArrayList<>();
    Consumer<R> onAnswer = response -> answerBytes.accept(response.getSerializedSize());
    Map<Integer, ShardFailure> moving = attempt(shards, deadline, party, locate, call, results, onAnswer,
        answered, failures);
    for (long pauseMs = 25; !moving.isEmpty() && deadline.timeRemaining(TimeUnit.MILLISECONDS) > 2 * pauseMs;
        pauseMs = Math.min(2 * pauseMs, MAX_PAUSE_MS)) {
      try {
        Thread.sleep(pauseMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for a shard copy to change place", e);
      }
      int[] again = moving.keySet().stream().mapToInt(Integer::intValue).toArray();
      moving = attempt(again, deadline, party, locate, call, results, onAnswer, answered, failures);
    }
    failures.addAll(moving.values());
    Map<Integer, T> responses = new LinkedHashMap<>();
    for (int shard : shards) {
      if (answered.containsKey(shard)) {
        responses.put(shard, answered.get(shard));
      }
    }
    failures.sort((a, b) -> Integer.compare(a.shard(), b.shard()));
    return new FanOut<>(responses, failures);
  }

  /**
   * One round of calls: puts the answers into {@code answered} and the failures into {@code failures}, except those of
   * shards whose copy was changing place, which it answers. Each server's answer is given to {@code onAnswer} as it
   * comes, before its shards are looked at: a refusal there ends the query at once.
   */
  private <R, T> Map<Integer, ShardFailure> attempt(int[] shards, Deadline deadline, String party,
      IntFunction<Optional<ShardAddress>> locate,
      BiFunction<ShardServiceGrpc.ShardServiceFutureStub, List<Integer>, ListenableFuture<R>> call,
      Function<R, List<ShardResult<T>>> results, Consumer<R> onAnswer, Map<Integer, T> answered,
      List<ShardFailure> failures) {
    Map<ShardAddress, List<Integer>> byServer = new LinkedHashMap<>();
    Map<Integer, ShardFailure> moving = new HashMap<>();
    for (int shard : shards) {
      Optional<ShardAddress> address = locate.apply(shard);
      if (address.isEmpty()) {
        failures.add(new ShardFailure(shard, "-", "no live copy is known for this shard"));
        continue;
      }
      byServer.computeIfAbsent(address.get(), a -> new ArrayList<>()).add(shard);
    }
    // A call that starts with less time than this says nothing of its server when it times out.
    boolean judged = deadline.timeRemaining(TimeUnit.MILLISECONDS) >= MIN_MS_TO_JUDGE_A_SERVER;
    long sentMs = breakers.nowMs();
    List<ListenableFuture<R>> calls = new ArrayList<>();
    List<ListenableFuture<Outcome<R>>> outcomes = new ArrayList<>();
    try {
      for (Iterator<Map.Entry<ShardAddress, List<Integer>>> servers = byServer.entrySet().iterator();
          servers.hasNext(); ) {
        Map.Entry<ShardAddress, List<Integer>> server = servers.next();
        // Asked once per server and call: a half-open breaker lets this one call (all its shards) through.
        String open = breakers.refusal(server.getKey());
        if (open != null) {
          server.getValue().forEach(shard -> failures.add(new ShardFailure(shard, server.getKey().toString(),
              "UNAVAILABLE: " + open)));
          servers.remove();
          continue;
        }
        ShardAddress address = server.getKey();
        ShardServiceGrpc.ShardServiceFutureStub stub = cluster.futureStub(address).withDeadline(deadline);
        ListenableFuture<R> future = call.apply(party == null ? stub : stub.withInterceptors(ReadParty.attach(party)),
            server.getValue());
        calls.add(future);
        outcomes.add(Futures.catching(Futures.transform(future, r -> new Outcome<>(address, r, null),
            MoreExecutors.directExecutor()), Throwable.class, e -> new Outcome<>(address, null, e),
            MoreExecutors.directExecutor()));
      }
      for (ListenableFuture<Outcome<R>> next : Futures.inCompletionOrder(outcomes)) {
        Outcome<R> outcome;
        try {
          // gRPC fails the call at the deadline; the extra second only guards against a lost callback.
          outcome = next.get(Math.max(0, deadline.timeRemaining(TimeUnit.MILLISECONDS)) + 1_000,
              TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          break;
        }
        String address = outcome.server().toString();
        List<Integer> serverShards = byServer.remove(outcome.server());
        Status.Code callCode = outcome.failure() == null ? Status.Code.OK
            : Status.fromThrowable(outcome.failure()).getCode();
        if (callCode == Status.Code.DEADLINE_EXCEEDED && breakers.answeredSince(outcome.server(), sentMs)) {
          // Alive (it answered other calls meanwhile), only too busy to finish this one in time: a 429 to retry,
          // not a failed server. A stalled server answers nothing after the call was sent.
          breakers.released(outcome.server());
          throw QueryException.overloaded("shard server " + address + " is busy: it answered other calls but not "
              + "this query's within its deadline; retry shortly, or narrow the query");
        }
        // A server that answers, even with an error, is alive; one that lets a call time out or is unreachable may
        // be stalled or gone (a shard server stops its searches before the deadline, so a slow query is answered).
        if (SERVER_FAILED.contains(callCode) && judged) {
          breakers.failed(outcome.server());
        } else if (SERVER_FAILED.contains(callCode) || callCode == Status.Code.CANCELLED) {
          breakers.released(outcome.server());
        } else {
          breakers.answered(outcome.server());
        }
        if (outcome.failure() == null) {
          onAnswer.accept(outcome.response());
          for (ShardResult<T> result : results.apply(outcome.response())) {
            if (result.error() == null) {
              answered.put(result.shard(), result.response());
              continue;
            }
            Status.Code code = Status.Code.valueOf(result.error().getCode());
            refuseIfTheQueryMust(code, "shard " + result.shard(), result.error().getMessage());
            ShardFailure failure = new ShardFailure(result.shard(), address, code + ": "
                + result.error().getMessage());
            if (MOVING_SHARD.contains(code)) {
              moving.put(result.shard(), failure);
            } else {
              failures.add(failure);
            }
          }
        } else {
          Status status = Status.fromThrowable(outcome.failure());
          refuseIfTheQueryMust(status.getCode(), "shard server " + address, status.getDescription());
          String reason = status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription());
          for (int shard : serverShards) {
            ShardFailure failure = new ShardFailure(shard, address, reason);
            if (MOVING_CALL.contains(status.getCode())) {
              moving.put(shard, failure);
            } else {
              failures.add(failure);
            }
          }
        }
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("a shard call's outcome failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the shard servers", e);
    } finally {
      // Refused, interrupted or past the deadline: the servers still working for this query stop, and their
      // breakers learn nothing from it (a lost callback aside, a call past the deadline has its outcome above).
      calls.forEach(pending -> pending.cancel(true));
      byServer.keySet().forEach(breakers::released);
    }
    // Servers whose answer never came (the callback was lost past the deadline).
    byServer.forEach((address, serverShards) -> serverShards.forEach(shard ->
        failures.add(new ShardFailure(shard, address.toString(), "no answer before the deadline"))));
    return moving;
  }

  @Override
  public void close() {
    cluster.close();
  }
}
