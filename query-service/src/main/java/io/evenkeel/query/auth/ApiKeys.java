package io.evenkeel.query.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query service's API keys, from a key file ({@link KeyFile}) that is read again when it changes (checked at most
 * once a second), so keys are added, rotated and revoked without a restart; a changed file that does not parse is
 * reported and the keys read before stay in force. A caller presents {@code <id>.<secret>}; the file holds the
 * secret's bcrypt hash (Bouncy Castle's {@code OpenBSDBCrypt}). A bcrypt check costs tens of milliseconds by design, so
 * a key that passed it is remembered, by the SHA-256 of what was presented, until the file changes; and wrong secrets
 * are checked at most {@value #FAILURES_BURST} times in a row per key id and per client address, then one every
 * {@value #FAILURE_REFILL_SECONDS} s ({@link TooManyFailures}, a 429): guessing cannot take the service's CPU.
 */
public final class ApiKeys {
  private static final Logger LOG = LoggerFactory.getLogger(ApiKeys.class);
  private static final long CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int BCRYPT_COST = 10;

  static final int FAILURES_BURST = 10;
  static final int FAILURE_REFILL_SECONDS = 6;

  /** Too many failed checks for the key id or from the address: the HTTP API answers 429 with Retry-After. */
  public static final class TooManyFailures extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final long retryAfterSeconds;

    TooManyFailures(String message, long retryAfterSeconds) {
      super(message);
      this.retryAfterSeconds = retryAfterSeconds;
    }

    public long retryAfterSeconds() {
      return retryAfterSeconds;
    }
  }

  /** No key, or not a valid one: the HTTP API answers 401. */
  public static final class Unauthorized extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unauthorized(String message) {
      super(message);
    }
  }

  /** The keys of one version of the file, and the presented keys that passed their check. */
  private record Loaded(Object stamp, Map<String, ApiKey> keys, Map<String, ApiKey> verified) {}

  private final Path file;
  private final FailedChecks failedChecks;
  private volatile Loaded loaded;
  private volatile long nextCheck;

  private ApiKeys(Path file, Loaded loaded, LongSupplier clock) {
    this.file = file;
    this.failedChecks = new FailedChecks(FAILURES_BURST, TimeUnit.SECONDS.toNanos(FAILURE_REFILL_SECONDS), clock);
    this.loaded = loaded;
    this.nextCheck = System.nanoTime() + CHECK_INTERVAL_NANOS;
  }

  /** The keys of {@code file}; throws naming the file and line when it does not parse. */
  public static ApiKeys open(Path file) throws IOException {
    return open(file, System::nanoTime);
  }

  /** The same, counting failed checks by {@code clock} (nanoseconds). */
  static ApiKeys open(Path file, LongSupplier clock) throws IOException {
    return new ApiKeys(file, read(file), clock);
  }

  /** How many keys are in force. */
  public int size() {
    return current().keys().size();
  }

  /** What the presented key ({@code <id>.<secret>}) may read; throws {@link Unauthorized} when it is not a key. */
  public Access authenticate(String presented) {
    return authenticate(presented, "-");
  }

  /**
   * The same for a caller at {@code clientAddress}; throws {@link TooManyFailures} instead of checking another wrong
   * secret once the key id or the address has had too many.
   */
  public Access authenticate(String presented, String clientAddress) {
    if (presented == null || presented.isBlank()) {
      throw new Unauthorized("this service requires an API key: send 'Authorization: Bearer <id>.<secret>'");
    }
    Loaded keys = current();
    String fingerprint = sha256(presented);
    ApiKey known = keys.verified().get(fingerprint);
    if (known != null) {
      return known.access();
    }
    int dot = presented.indexOf('.');
    ApiKey key = dot <= 0 ? null : keys.keys().get(presented.substring(0, dot));
    if (key == null) {
      throw new Unauthorized("the API key is not valid (unknown, revoked or mistyped)");
    }
    String id = "key id " + presented.substring(0, dot);
    String address = "address " + clientAddress;
    // Counted as failures before the check, so that concurrent guesses cannot all pass; given back if it passes.
    long retryAfter = failedChecks.begin(id);
    if (retryAfter == 0) {
      retryAfter = failedChecks.begin(address);
      if (retryAfter > 0) {
        failedChecks.passed(id);
        throw new TooManyFailures("too many wrong secrets from " + address + "; retry in " + retryAfter + " s",
            retryAfter);
      }
    } else {
      throw new TooManyFailures("too many wrong secrets for " + id + "; retry in " + retryAfter + " s", retryAfter);
    }
    if (!OpenBSDBCrypt.checkPassword(key.secretHash(), presented.substring(dot + 1).toCharArray())) {
      throw new Unauthorized("the API key is not valid (unknown, revoked or mistyped)");
    }
    failedChecks.passed(id);
    failedChecks.passed(address);
    keys.verified().put(fingerprint, key);
    return key.access();
  }

  /**
   * A new random key for {@code id}: the key a client presents, and the line the key file needs for it ({@code role}:
   * {@code admin}, or {@code tenant 7,9}).
   */
  public static String[] newKey(String id, String role) {
    byte[] secret = new byte[24];
    SecureRandom random = new SecureRandom();
    random.nextBytes(secret);
    String text = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    byte[] salt = new byte[16];
    random.nextBytes(salt);
    String hash = OpenBSDBCrypt.generate("2y", text.toCharArray(), salt, BCRYPT_COST);
    return new String[] {id + "." + text, id + " " + hash + " " + role};
  }

  private Loaded current() {
    long now = System.nanoTime();
    if (now - nextCheck >= 0) {
      synchronized (this) {
        if (now - nextCheck >= 0) {
          nextCheck = now + CHECK_INTERVAL_NANOS;
          reloadIfChanged();
        }
      }
    }
    return loaded;
  }

  private void reloadIfChanged() {
    try {
      if (!stamp(file).equals(loaded.stamp())) {
        Loaded next = read(file);
        // Keys that passed their check and are unchanged stay checked: a reload does not send their clients
        // through bcrypt (and past the bound on wrong secrets) again.
        loaded.verified().forEach((fingerprint, key) -> {
          if (key.equals(next.keys().get(key.id()))) {
            next.verified().put(fingerprint, key);
          }
        });
        LOG.info("API keys reloaded from {}: {} keys", file, next.keys().size());
        loaded = next;
      }
    } catch (IOException e) {
      LOG.error("API keys: cannot read the changed key file; the {} keys read before stay in force: {}",
          loaded.keys().size(), e.getMessage());
    }
  }

  private static Loaded read(Path file) throws IOException {
    Object stamp = stamp(file);
    return new Loaded(stamp, KeyFile.read(file), new ConcurrentHashMap<>());
  }

  /** What tells a changed file: its modification time, size and file key. */
  private static Object stamp(Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return List.of(attributes.lastModifiedTime(), attributes.size(),
        String.valueOf(attributes.fileKey()));
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
