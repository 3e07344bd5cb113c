package io.evenkeel.launcher.local;

import io.evenkeel.launcher.cli.UserError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How {@code evenkeel add-server} asks a running {@code evenkeel local} for one more shard server: a file in the data
 * directory, which the stack takes (deletes) within half a second. The stack answers by listing the server in
 * stack.json, or by a failure file naming the reason.
 */
final class AddServerRequest {
  static final String FILE = "add-server.request";
  static final String FAILED = "add-server.failed";

  private AddServerRequest() {}

  /** Files a request; refuses when one is already pending. */
  static void submit(Path dataDir) throws IOException {
    Files.deleteIfExists(dataDir.resolve(FAILED));
    try {
      Files.createFile(dataDir.resolve(FILE));
    } catch (FileAlreadyExistsException e) {
      throw new UserError("a request to add a shard server is already pending (" + dataDir.resolve(FILE) + ")");
    }
  }

  /** Whether a request was filed; takes it. */
  static boolean take(Path dataDir) {
    try {
      return Files.deleteIfExists(dataDir.resolve(FILE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Answers a request with why it failed. */
  static void fail(Path dataDir, String reason) {
    try {
      Files.writeString(dataDir.resolve(FAILED), reason);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Why the last request failed, if the stack said so. */
  static Optional<String> failure(Path dataDir) throws IOException {
    Path failed = dataDir.resolve(FAILED);
    return Files.exists(failed) ? Optional.of(Files.readString(failed)) : Optional.empty();
  }
}
