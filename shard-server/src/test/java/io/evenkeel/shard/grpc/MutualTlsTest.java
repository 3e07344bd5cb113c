package io.evenkeel.shard.grpc;

import static io.evenkeel.shard.testing.TestRows.BATCHES;
import static io.evenkeel.shard.testing.TestRows.batch;
import static io.evenkeel.shard.testing.TestRows.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.embedded.LocalCertificates;
import io.evenkeel.schemas.shard.AcquireCopyStateRequest;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Query;
import io.evenkeel.schemas.shard.SearchRequest;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.shard.WriteRequest;
import io.evenkeel.shard.engine.ShardSettings;
import io.evenkeel.shard.replication.PeerChannels;
import io.evenkeel.shard.replication.Replicas;
import io.evenkeel.shard.server.ServerTls;
import io.evenkeel.shard.server.ShardServer;
import io.evenkeel.shard.translog.Durability;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard server with mutual TLS: only a client whose certificate the CA signed gets in, and only the writers' common
 * names may write; a reader's certificate searches but cannot write, and a plaintext client or one without a
 * certificate is refused.
 */
class MutualTlsTest {
  @TempDir Path dir;
  private ShardServer server;
  private ShardAddress address;
  private LocalCertificates certificates;

  @BeforeEach
  void start() throws Exception {
    certificates = LocalCertificates.create(dir.resolve("tls"));
    LocalCertificates.Issued serverCert = certificates.issue("shard-server");
    server = new ShardServer(dir.resolve("data"), Set.of(0), new ShardSettings(Durability.REQUEST, 200, 60_000,
        600_000, 16), new InetSocketAddress("127.0.0.1", 0),
        new ServerTls(serverCert.certificate(), serverCert.privateKey(), certificates.caCertificate(),
            Set.of("ingest")));
    address = new ShardAddress("127.0.0.1", server.start());
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private ClusterClient client(String commonName) throws Exception {
    LocalCertificates.Issued issued = certificates.issue(commonName);
    assertThat(Files.getPosixFilePermissions(issued.privateKey())).as("only its owner reads a key")
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    return new ClusterClient(new ClientTls(certificates.caCertificate(), issued.certificate(), issued.privateKey()));
  }

  private static WriteRequest write(long row) {
    return WriteRequest.newBuilder().setShard(0).setBatch(ByteString.copyFrom(BATCHES.encode(
        batch(0, row, List.of(insert(7, row, 1).build()), true)))).build();
  }

  private static SearchRequest tenantSeven() {
    return SearchRequest.newBuilder().setShard(0).setQuery(Query.newBuilder().setLimit(10).setTrackTotal(true)
        .setFilter(Filter.newBuilder().setTerm(Term.newBuilder().setField("tenant_id")
            .setValue(Value.newBuilder().setLongValue(7))))).build();
  }

  /** Servers replicate to each other with their own certificates; a reader cannot call the replication service. */
  @Test
  void aReplicaJoinsOverMutualTlsAndAReaderCannotReplicate() throws Exception {
    LocalCertificates.Issued peerCert = certificates.issue("shard-server");
    try (ShardServer replica = new ShardServer(dir.resolve("replica"), Set.of(), Map.of(0, address.toString()),
            Replicas.ALL_IN_SYNC, new ShardSettings(Durability.REQUEST, 200, 100, 600_000, 16),
            new InetSocketAddress("127.0.0.1", 0), new ServerTls(peerCert.certificate(), peerCert.privateKey(),
                certificates.caCertificate(), Set.of("ingest")));
        ClusterClient ingest = client("ingest"); ClusterClient query = client("query")) {
      ShardAddress replicaAddress = new ShardAddress("127.0.0.1", replica.start());
      ingest.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS).write(write(1));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (total(query, replicaAddress) != 1) {
        assertThat(System.nanoTime()).as("the row reaches the replica").isLessThan(deadline);
        Thread.sleep(50);
      }
      LocalCertificates.Issued reader = certificates.issue("query");
      try (PeerChannels asReader = new PeerChannels(TlsChannelCredentials.newBuilder()
          .keyManager(reader.certificate().toFile(), reader.privateKey().toFile())
          .trustManager(certificates.caCertificate().toFile()).build())) {
        assertThatThrownBy(() -> asReader.blockingStub(address.toString()).withDeadlineAfter(10, TimeUnit.SECONDS)
            .acquireCopyState(AcquireCopyStateRequest.newBuilder().setShard(0).build()))
            .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
              assertThat(e.getStatus().getDescription()).contains("'query'").contains("shard-server");
            });
      }
    }
  }

  private static long total(ClusterClient client, ShardAddress server) {
    try {
      return client.blockingStub(server).withDeadlineAfter(10, TimeUnit.SECONDS).search(tenantSeven()).getTotal();
    } catch (StatusRuntimeException e) {
      return -1; // the replica is still joining
    }
  }

  @Test
  void theWriterWritesAReaderOnlyReadsAndStrangersAreRefused() throws Exception {
    try (ClusterClient ingest = client("ingest"); ClusterClient query = client("query");
        ClusterClient plaintext = new ClusterClient()) {
      ingest.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS).write(write(1));
      assertThat(query.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS).search(tenantSeven())
          .getTotal()).isEqualTo(1);

      assertThatThrownBy(() -> query.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS).write(write(2)))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(e.getStatus().getDescription()).contains("'query'").contains("ingest");
          });
      assertThatThrownBy(() -> plaintext.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS)
          .search(tenantSeven())).isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }
    // A client of another CA: TLS refuses it before any call.
    LocalCertificates stranger = LocalCertificates.create(dir.resolve("stranger"));
    LocalCertificates.Issued forged = stranger.issue("ingest");
    try (ClusterClient outsider = new ClusterClient(new ClientTls(certificates.caCertificate(), forged.certificate(),
        forged.privateKey()))) {
      assertThatThrownBy(() -> outsider.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS).write(write(3)))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }
    try (ClusterClient ingest = client("ingest")) {
      assertThat(ingest.blockingStub(address).withDeadlineAfter(10, TimeUnit.SECONDS).search(tenantSeven())
          .getTotal()).as("only the writer's row").isEqualTo(1);
    }
  }
}
