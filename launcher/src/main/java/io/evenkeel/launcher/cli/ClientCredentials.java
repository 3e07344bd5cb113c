package io.evenkeel.launcher.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * What a command needs to reach a query service that requires it: the API key it presents (from a file, or from the
 * environment variable {@value #KEY_VARIABLE}; never a flag's value, which every local user sees in the process
 * list), and the CA that signed the service's HTTPS certificate.
 */
public final class ClientCredentials {
  /** The environment variable that may hold the API key. */
  public static final String KEY_VARIABLE = "EVENKEEL_API_KEY";

  @Option(names = "--key-file", paramLabel = "FILE", description = "A file holding the query service's API key"
      + " (<id>.<secret>), when it requires one; or set the environment variable " + KEY_VARIABLE + ".")
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
    String key = System.getenv(KEY_VARIABLE);
    if (key != null && !key.isBlank() && keyFile != null) {
      throw new UserError("give --key-file or " + KEY_VARIABLE + ", not both");
    }
    if (keyFile == null) {
      return key == null || key.isBlank() ? null : key.strip();
    }
    try {
      return Files.readString(keyFile).strip();
    } catch (IOException e) {
      throw new UserError("cannot read the key file " + keyFile + ": " + e.getMessage(), e);
    }
  }
}
