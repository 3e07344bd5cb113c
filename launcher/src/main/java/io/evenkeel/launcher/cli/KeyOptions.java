package io.evenkeel.launcher.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The API key a command presents to the query service: given inline, or read from a file (out of shell history). */
public final class KeyOptions {
  @Option(names = "--key", paramLabel = "KEY",
      description = "The query service's API key (<id>.<secret>), when it requires one.")
  String key;

  @Option(names = "--key-file", paramLabel = "FILE", description = "A file holding the API key (instead of --key).")
  Path keyFile;

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
