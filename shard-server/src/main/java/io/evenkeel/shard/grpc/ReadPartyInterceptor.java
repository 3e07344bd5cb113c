package io.evenkeel.shard.grpc;

import io.evenkeel.cluster.client.ReadParty;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/** Puts the party a call is for ({@link ReadParty#HEADER}, or {@link ReadParty#UNNAMED}) into its context. */
public final class ReadPartyInterceptor implements ServerInterceptor {
  /** The party of the current call. */
  public static final Context.Key<String> PARTY = Context.keyWithDefault("evenkeel-party", ReadParty.UNNAMED);

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
      ServerCallHandler<ReqT, RespT> next) {
    String party = headers.get(ReadParty.HEADER);
    return Contexts.interceptCall(Context.current().withValue(PARTY, party == null ? ReadParty.UNNAMED
        : ReadParty.printable(party)), call, headers, next);
  }
}
