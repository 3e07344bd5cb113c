package io.evenkeel.launcher.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * What a command needs to reach a query service that requires it: the API key it presents (inline, or from a file, out
 * of shell history), and the CA that signed the service's HTTPS certificate.
 */
public final class ClientCredentials {
  @Option(names = "--key", paramLabel = "KEY",
      description = "The query service's API key (<id>.<secret>), when it requires one.")
  String key;

  @Option(names = "--key-file", paramLabel = "FILE", description = "A file holding the API key (instead of --key).")
  Path keyFile;

  @Option(names = "--ca-cert", paramLabel = "PEM", description = "The CA that signed the query service's HTTPS "
      + "certificate (default: the local stack's, with --secure).")
  Path caCertificate;

  /** The CA given, else {@code fallback} (the local stack's, or null). */
  public Path caCertificate(Path fallback) {
    return caCertificate != null ? caCertificate : fallback;
  }

  /** The key, or null when none was given. */
  public String key() {
    if (key != null && keyFile != null) {
      throw new UserError("give --key or --key-file, not both");
    }
    if (keyFile == null) {
      return key;
    }
    try {
      return Files.readString(keyFile).strip();
    } catch (IOException e) {
      throw new UserError("cannot read the key file " + keyFile + ": " + e.getMessage(), e);
    }
  }
}
