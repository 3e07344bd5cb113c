package io.evenkeel.launcher.local;

import io.evenkeel.cluster.client.ClientTls;
import io.evenkeel.cluster.options.ClientTlsSettings;
import io.evenkeel.embedded.KafkaBroker;
import io.evenkeel.embedded.LocalCertificates;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What {@code evenkeel local --secure} turns on: a throw-away CA in {@code <data dir>/tls}, made anew at each start,
 * with a certificate per process (the shard servers, the ingest job, the only writer, the query service and the
 * launcher, readers), so every call to a shard server is mutual TLS; and API keys for the query service, from {@code
 * --api-keys} or else a key file with one new admin key, written to {@code <data dir>/admin.key} for {@code sql} and
 * {@code load} to pass with {@code --key-file}. The key is made by the query service's own {@code --new-key}. And a
 * ZooKeeper identity ({@code <data dir>/zookeeper-credentials}, kept across restarts since the nodes it created
 * stay its own) that every process authenticates as, so Evenkeel's nodes are closed to other ZooKeeper clients. And
 * the Flink web UI over TLS for clients with a certificate of this CA only (the launcher's key store opens it), and
 * the query service over HTTPS. And Kafka with SASL/PLAIN on every listener, as one user with a password made anew
 * at each start, in {@code <data dir>/kafka-client.properties}: the properties every Kafka client of the stack
 * (and {@code load}) reads, so no other local user can produce, consume or move the written offsets.
 */
final class LocalSecurity {
  static final String WRITER = "ingest";
  static final String KAFKA_USER = "evenkeel";
  private static final List<String> PROCESSES = List.of("shard-server", WRITER, "query", "launcher");

  private final LocalCertificates certificates;
  private final Map<String, LocalCertificates.Issued> issued;
  private final Path apiKeys;
  private final Path adminKey;
  private final Path zookeeperCredentials;
  private Path webUiKeyStore;
  private Path trustStore;
  private Path launcherKeyStore;
  private Path queryKeyStore;
  private Path storePassword;
  private Path kafkaClientConfig;
  private String kafkaPassword;

  private LocalSecurity(LocalCertificates certificates, Map<String, LocalCertificates.Issued> issued, Path apiKeys,
      Path adminKey, Path zookeeperCredentials) {
    this.certificates = certificates;
    this.issued = issued;
    this.apiKeys = apiKeys;
    this.adminKey = adminKey;
    this.zookeeperCredentials = zookeeperCredentials;
  }

  /** Makes the CA and the certificates, and the admin key unless {@code apiKeys} names the keys to use. */
  static LocalSecurity create(Path dataDir, Path queryServiceJar, Path apiKeys) throws IOException,
      InterruptedException {
    LocalCertificates certificates = LocalCertificates.create(dataDir.resolve("tls"));
    Map<String, LocalCertificates.Issued> issued = new HashMap<>();
    for (String process : PROCESSES) {
      issued.put(process, certificates.issue(process));
    }
    Path zookeeper = zookeeperCredentialsIn(dataDir);
    if (!Files.exists(zookeeper)) {
      writePrivate(zookeeper, "evenkeel:" + newSecret() + "\n");
    }
    if (apiKeys != null) {
      LocalSecurity security = new LocalSecurity(certificates, issued, apiKeys, null, zookeeper);
      security.makeKeyStores(dataDir.resolve("tls"));
      security.makeKafkaCredentials(dataDir);
      return security;
    }
    Path keyFile = dataDir.resolve("api-keys");
    Path adminKey = dataDir.resolve("admin.key");
    String[] admin = newAdminKey(queryServiceJar);
    writePrivate(keyFile, "# made by evenkeel local --secure; one key per line (see docs/QUERY-SERVICE.md)\n"
        + admin[1] + "\n");
    writePrivate(adminKey, admin[0] + "\n");
    LocalSecurity security = new LocalSecurity(certificates, issued, keyFile, adminKey, zookeeper);
    security.makeKeyStores(dataDir.resolve("tls"));
    security.makeKafkaCredentials(dataDir);
    return security;
  }

  /** Where a secure stack on {@code dataDir} keeps its Kafka clients' properties (SASL). */
  static Path kafkaClientConfigIn(Path dataDir) {
    return dataDir.resolve("kafka-client.properties");
  }

  private void makeKafkaCredentials(Path dataDir) throws IOException {
    kafkaPassword = newSecret();
    kafkaClientConfig = kafkaClientConfigIn(dataDir);
    StringBuilder properties = new StringBuilder("# made by evenkeel local --secure at each start\n");
    new TreeMap<>(KafkaBroker.saslClient(KAFKA_USER, kafkaPassword))
        .forEach((name, value) -> properties.append(name).append('=').append(value).append('\n'));
    writePrivate(kafkaClientConfig, properties.toString());
  }

  /** The password of the one Kafka user the broker knows. */
  String kafkaPassword() {
    return kafkaPassword;
  }

  /** A Kafka client's option naming the properties file. */
  List<String> kafkaArgs() {
    return List.of("--kafka-config", kafkaClientConfig.toString());
  }

  Path kafkaClientConfig() {
    return kafkaClientConfig;
  }

  /**
   * Key stores for the Flink web UI's TLS (PKCS#12, as Flink and the JDK read them): the job's, the launcher's and
   * the CA's, under one random password kept in a file of its own.
   */
  private void makeKeyStores(Path dir) throws IOException {
    byte[] random = new byte[18];
    new SecureRandom().nextBytes(random);
    char[] password = Base64.getUrlEncoder().withoutPadding().encodeToString(random).toCharArray();
    storePassword = dir.resolve("stores.password");
    writePrivate(storePassword, new String(password) + "\n");
    webUiKeyStore = certificates.keyStore(issued.get(WRITER), password);
    launcherKeyStore = certificates.keyStore(issued.get("launcher"), password);
    queryKeyStore = certificates.keyStore(issued.get("query"), password);
    trustStore = certificates.trustStore(password);
  }

  /** The ingest job's web UI options: TLS, and only clients with a certificate of this CA. */
  List<String> webUiArgs() {
    return List.of("--web-ui-tls-keystore", webUiKeyStore.toString(), "--web-ui-tls-truststore",
        trustStore.toString(), "--web-ui-tls-password-file", storePassword.toString());
  }

  /** The query service's HTTPS options. */
  List<String> httpsArgs() {
    return List.of("--https-keystore", queryKeyStore.toString(), "--https-password-file", storePassword.toString());
  }

  /** The CA every certificate of the stack comes from (PEM). */
  Path caCertificate() {
    return certificates.caCertificate();
  }

  /**
   * An HTTP client that presents the launcher's certificate and trusts this CA: for the Flink web UI's REST API and
   * the query service's HTTPS.
   */
  HttpClient httpClient() throws IOException {
    try {
      char[] password = Files.readString(storePassword).strip().toCharArray();
      KeyStore own = KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(launcherKeyStore)) {
        own.load(in, password);
      }
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(trustStore)) {
        trusted.load(in, password);
      }
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(own, password);
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      return HttpClient.newBuilder().sslContext(tls).build();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS for the Flink web UI: " + e.getMessage(), e);
    }
  }

  /** The shard servers' TLS options: only the ingest job may write. */
  List<String> shardServerArgs() {
    LocalCertificates.Issued server = issued.get("shard-server");
    return List.of("--tls-cert", server.certificate().toString(), "--tls-key", server.privateKey().toString(),
        "--tls-client-ca", certificates.caCertificate().toString(), "--writers", WRITER);
  }

  /** A shard-server client's TLS options ({@code --tls-ca}, {@code --tls-cert}, {@code --tls-key}). */
  List<String> clientArgs(String process) {
    return ClientTlsSettings.of(clientTls(process)).toArgs();
  }

  /** Where a secure stack on {@code dataDir} keeps the ZooKeeper identity its processes authenticate as. */
  static Path zookeeperCredentialsIn(Path dataDir) {
    return dataDir.resolve("zookeeper-credentials");
  }

  Path zookeeperCredentials() {
    return zookeeperCredentials;
  }

  ClientTls clientTls(String process) {
    LocalCertificates.Issued own = issued.get(process);
    return new ClientTls(certificates.caCertificate(), own.certificate(), own.privateKey());
  }

  Path apiKeys() {
    return apiKeys;
  }

  /** The admin key's file, or null when the keys came from {@code --api-keys}. */
  Path adminKey() {
    return adminKey;
  }

  /** The key and its key-file line, from {@code query-service.jar --new-key admin}. */
  private static String[] newAdminKey(Path queryServiceJar) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        queryServiceJar.toString(), "--new-key", "admin", "--new-key-role", "admin").redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException("the query service could not make an admin key: " + output);
    }
    List<String> found = new ArrayList<>();
    for (String prefix : List.of("key (give it to the client; it is not stored): ", "key-file line: ")) {
      found.add(output.lines().filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length()))
          .findFirst().orElseThrow(() -> new IOException("unexpected --new-key output: " + output)));
    }
    return found.toArray(String[]::new);
  }

  private static String newSecret() {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  private static void writePrivate(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text);
  }
}
