package io.evenkeel.shard.server;

import io.evenkeel.schemas.shard.ReplicationServiceGrpc;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Lets only the writers named by {@link ServerTls} call {@code Write}, and only its peers call the replication service
 * (which writes to replicas and hands out index files): the common name of the client certificate that TLS verified
 * decides. Anyone else gets PERMISSION_DENIED naming who they are and who may call.
 */
final class WriterCheck implements ServerInterceptor {
  private static final String WRITE = ShardServiceGrpc.getWriteMethod().getFullMethodName();

  private static final String REPLICATION = ReplicationServiceGrpc.SERVICE_NAME;

  private final Set<String> writers;
  private final Set<String> peers;

  WriterCheck(Set<String> writers, Set<String> peers) {
    this.writers = Set.copyOf(writers);
    this.peers = Set.copyOf(peers);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    boolean write = call.getMethodDescriptor().getFullMethodName().equals(WRITE);
    boolean replication = REPLICATION.equals(call.getMethodDescriptor().getServiceName());
    if (write || replication) {
      String caller = commonName(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
      Set<String> allowed = write ? writers : peers;
      if (!allowed.contains(caller)) {
        call.close(Status.PERMISSION_DENIED.withDescription("client '" + caller + "' may not "
            + (write ? "write to this shard server; writers: " : "call this server's replication service; peers: ")
            + allowed), new Metadata());
        return new ServerCall.Listener<>() {};
      }
    }
    return next.startCall(call, headers);
  }

  /** The CN of the verified client certificate, or "(none)". */
  private static String commonName(SSLSession session) {
    if (session == null) {
      return "(none)";
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      String subject = ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
      for (Rdn rdn : new LdapName(subject).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return rdn.getValue().toString();
        }
      }
      return "(no CN)";
    } catch (SSLPeerUnverifiedException | InvalidNameException | ClassCastException e) {
      return "(unverified)";
    }
  }
}
