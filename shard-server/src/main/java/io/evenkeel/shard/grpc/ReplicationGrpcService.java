package io.evenkeel.shard.grpc;

import io.evenkeel.schemas.shard.AcquireCopyStateRequest;
import io.evenkeel.schemas.shard.AcquireCopyStateResponse;
import io.evenkeel.schemas.shard.AddReplicaRequest;
import io.evenkeel.schemas.shard.AddReplicaResponse;
import io.evenkeel.schemas.shard.NewNrtPointRequest;
import io.evenkeel.schemas.shard.NewNrtPointResponse;
import io.evenkeel.schemas.shard.NrtPoint;
import io.evenkeel.schemas.shard.PreCopyMergeRequest;
import io.evenkeel.schemas.shard.PreCopyMergeResponse;
import io.evenkeel.schemas.shard.ReadFileRequest;
import io.evenkeel.schemas.shard.ReadFileResponse;
import io.evenkeel.schemas.shard.ReleaseCopyStateRequest;
import io.evenkeel.schemas.shard.ReleaseCopyStateResponse;
import io.evenkeel.schemas.shard.ReplicaHeartbeatRequest;
import io.evenkeel.schemas.shard.ReplicaHeartbeatResponse;
import io.evenkeel.schemas.shard.ReplicateRequest;
import io.evenkeel.schemas.shard.ReplicateResponse;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.evenkeel.shard.engine.ReplicaShard;
import io.evenkeel.shard.engine.Shard;
import io.evenkeel.shard.replication.NrtPoints;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;
import org.apache.lucene.store.AlreadyClosedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication face of a server's shard copies: calls a replica makes on its primary, and calls a primary makes on
 * its replicas. A call for a copy this server does not hold in that role, or one that is closing, answers UNAVAILABLE
 * (the caller follows the cluster state to the copy that holds it); a call the copy refuses in its role (a replica
 * this primary does not forward to, a batch of another term) answers FAILED_PRECONDITION naming why.
 */
public final class ReplicationGrpcService extends ReplicationServiceGrpc.ReplicationServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationGrpcService.class);

  private final IntFunction<Shard> primaries;
  private final IntFunction<ReplicaShard> replicas;
  private final BiPredicate<Integer, String> admitted;

  /**
   * Each function returns the copy in that role or throws {@link RoleMismatchException} naming what is held; {@code
   * admitted} says whether a server ("host:port") may join a shard's primary here as its replica.
   */
  public ReplicationGrpcService(IntFunction<Shard> primaries, IntFunction<ReplicaShard> replicas,
      BiPredicate<Integer, String> admitted) {
    this.primaries = primaries;
    this.replicas = replicas;
    this.admitted = admitted;
  }

  /** A caller the cluster did not assign the copy it asks for. */
  static final class NotAssignedException extends RuntimeException {
    NotAssignedException(String message) {
      super(message);
    }
  }

  /** This server holds no copy of the shard in the role a call needs: transient while the cluster state moves. */
  public static final class RoleMismatchException extends RuntimeException {
    public RoleMismatchException(String message) {
      super(message);
    }
  }

  private interface Call<T> {
    T run() throws Exception;
  }

  @Override
  public void addReplica(AddReplicaRequest request, StreamObserver<AddReplicaResponse> response) {
    answer(response, () -> {
      String address = request.getHost() + ":" + request.getPort();
      if (!admitted.test(request.getShard(), address)) {
        throw new NotAssignedException("shard " + request.getShard() + ": " + address + " is not one of its replicas "
            + "in the cluster state; only a server the cluster assigned a replica to may join its primary");
      }
      Shard.Join join = primaries.apply(request.getShard()).addReplica(address);
      return AddReplicaResponse.newBuilder().setPrimaryTerm(join.term()).setNextSeqNo(join.nextSeqNo())
          .setVersion(join.version()).build();
    });
  }

  @Override
  public void replicaHeartbeat(ReplicaHeartbeatRequest request, StreamObserver<ReplicaHeartbeatResponse> response) {
    answer(response, () -> {
      Shard primary = primaries.apply(request.getShard());
      String address = request.getHost() + ":" + request.getPort();
      if (!primary.replicaHeartbeat(address, request.getPrimaryTerm(), request.getSearchingVersion())) {
        throw new IllegalStateException("shard " + request.getShard() + ": " + address + " is not a replica of this"
            + " primary in term " + request.getPrimaryTerm());
      }
      return ReplicaHeartbeatResponse.newBuilder().setInSync(primary.replicaInSync(address))
          .setVersion(primary.version()).build();
    });
  }

  @Override
  public void acquireCopyState(AcquireCopyStateRequest request, StreamObserver<AcquireCopyStateResponse> response) {
    answer(response, () -> {
      Map.Entry<Long, NrtPoint> point = primaries.apply(request.getShard()).acquirePoint();
      return AcquireCopyStateResponse.newBuilder().setSession(point.getKey()).setPoint(point.getValue()).build();
    });
  }

  @Override
  public void releaseCopyState(ReleaseCopyStateRequest request, StreamObserver<ReleaseCopyStateResponse> response) {
    answer(response, () -> {
      primaries.apply(request.getShard()).releasePoint(request.getSession());
      return ReleaseCopyStateResponse.getDefaultInstance();
    });
  }

  @Override
  public void readFile(ReadFileRequest request, StreamObserver<ReadFileResponse> response) {
    answer(response, () -> ReadFileResponse.newBuilder().setData(com.google.protobuf.UnsafeByteOperations.unsafeWrap(
        primaries.apply(request.getShard()).readFile(request.getFile(), request.getOffset(), request.getLength(),
            request.getSession()))).build());
  }

  @Override
  public void replicate(ReplicateRequest request, StreamObserver<ReplicateResponse> response) {
    answer(response, () -> {
      replicas.apply(request.getShard()).replicate(request.getPrimaryTerm(), request.getFirstSeqNo(),
          request.getLastSeqNo(), request.getBatch().toByteArray());
      return ReplicateResponse.getDefaultInstance();
    });
  }

  @Override
  public void newNrtPoint(NewNrtPointRequest request, StreamObserver<NewNrtPointResponse> response) {
    answer(response, () -> {
      replicas.apply(request.getShard()).newPoint(request.getPrimaryTerm(), request.getVersion(),
          request.getCoveredSeqNo());
      return NewNrtPointResponse.getDefaultInstance();
    });
  }

  @Override
  public void preCopyMerge(PreCopyMergeRequest request, StreamObserver<PreCopyMergeResponse> response) {
    answer(response, () -> {
      replicas.apply(request.getShard()).preCopyMerge(request.getPrimaryTerm(),
          NrtPoints.fromMessages(request.getFilesMap()));
      return PreCopyMergeResponse.getDefaultInstance();
    });
  }

  private static <T> void answer(StreamObserver<T> response, Call<T> call) {
    T result;
    try {
      result = call.run();
    } catch (NotAssignedException e) {
      response.onError(Status.PERMISSION_DENIED.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RoleMismatchException | AlreadyClosedException e) {
      response.onError(Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalStateException e) {
      response.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IllegalArgumentException e) {
      response.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (Exception e) {
      LOG.error("replication call failed", e);
      response.onError(Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
      return;
    }
    response.onNext(result);
    response.onCompleted();
  }
}
