package io.evenkeel.ingest;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;

/**
 * The settings of a local Flink environment's web UI: on loopback unless asked otherwise, with no job submission.
 * Flink's defaults bind every interface and let anyone who reaches the port upload a jar and run it.
 *
 * <p>NOTE: Flink 2.2's {@code web.cancel.enable} and {@code web.rescale.enable} only hide the UI's buttons; its REST
 * API still cancels a job for whoever reaches the port. Loopback keeps that to this machine's users, and {@link
 * #requireClientCertificates} to the holders of a certificate.
 */
final class LocalWebUi {
  private LocalWebUi() {}

  static void configure(Configuration configuration, String host, int port) {
    configuration.set(RestOptions.BIND_ADDRESS, host);
    configuration.set(RestOptions.ADDRESS, host);
    configuration.set(RestOptions.PORT, port);
    // The job manager's and task manager's own listeners (RPC, blob server) stay on loopback whatever the UI does.
    configuration.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
    configuration.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
    configuration.set(WebOptions.SUBMIT_ENABLE, false);
    configuration.set(WebOptions.CANCEL_ENABLE, false);
    configuration.set(WebOptions.RESCALE_ENABLE, false);
    if (!isLoopback(host)) {
      System.err.println("WARNING: the Flink web UI listens on " + host + ":" + port + " without authentication:"
          + " anyone who reaches it sees the job, its configuration and its logs, and can cancel it (job submission is"
          + " off)");
    }
  }

  /**
   * The web UI and REST API over TLS, for clients with a certificate the trust store's CA signed only: the one way
   * Flink offers to keep its REST API from cancelling the job for anyone who reaches the port.
   */
  static void requireClientCertificates(Configuration configuration, Path keyStore, Path trustStore,
      String password) {
    configuration.set(SecurityOptions.SSL_REST_ENABLED, true);
    configuration.set(SecurityOptions.SSL_REST_AUTHENTICATION_ENABLED, true);
    configuration.set(SecurityOptions.SSL_REST_KEYSTORE, keyStore.toAbsolutePath().toString());
    configuration.set(SecurityOptions.SSL_REST_KEYSTORE_TYPE, "PKCS12");
    configuration.set(SecurityOptions.SSL_REST_KEYSTORE_PASSWORD, password);
    configuration.set(SecurityOptions.SSL_REST_KEY_PASSWORD, password);
    configuration.set(SecurityOptions.SSL_REST_TRUSTSTORE, trustStore.toAbsolutePath().toString());
    configuration.set(SecurityOptions.SSL_REST_TRUSTSTORE_TYPE, "PKCS12");
    configuration.set(SecurityOptions.SSL_REST_TRUSTSTORE_PASSWORD, password);
    // Flink's default suite list holds one RSA suite; the local CA's keys are EC (P-256).
    configuration.set(SecurityOptions.SSL_ALGORITHMS,
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
  }

  private static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--web-ui-host: unknown host '" + host + "'", e);
    }
  }
}
