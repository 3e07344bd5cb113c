package io.evenkeel.embedded;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loopback ports free now for a server a test or benchmark starts moments later. They are taken below Linux's
 * ephemeral range (32768 and up), where the kernel hands out the local ports of client connections and of servers
 * bound to port 0: a port chosen there can be taken by any connection of this machine before the server binds it,
 * which on a busy machine, with a JVM to start first, happens.
 *
 * <p>Each port handed out is also reserved for the life of this JVM with a lock on a file named by it (in
 * {@code java.io.tmpdir/evenkeel-ports}): two test JVMs running side by side, or a test picking ports while another
 * one's stack has not bound all of its range yet, never get the same port.
 */
public final class FreePorts {
  private static final int LOWEST = 20_000;
  private static final int BELOW_EPHEMERAL = 32_768;
  private static final Random RANDOM = new Random();
  private static final Path RESERVATIONS = Path.of(System.getProperty("java.io.tmpdir"), "evenkeel-ports");
  /** The ports this JVM holds, with their locks (held until it exits). */
  private static final Map<Integer, FileLock> RESERVED = new ConcurrentHashMap<>();

  private FreePorts() {}

  /** One free port. */
  public static int one() throws IOException {
    return pick(1)[0];
  }

  /** {@code count} distinct free ports (distinct because each one handed out stays reserved). */
  public static int[] pick(int count) throws IOException {
    int[] ports = new int[count];
    for (int i = 0; i < count; i++) {
      ports[i] = some();
    }
    return ports;
  }

  /** The first of {@code count} consecutive ports that are all free now. */
  public static int consecutive(int count) throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int base = LOWEST + RANDOM.nextInt(BELOW_EPHEMERAL - LOWEST - count);
      if (claimedRange(base, count)) {
        return base;
      }
    }
    throw new IOException("no free range of " + count + " ports on loopback between " + LOWEST + " and "
        + BELOW_EPHEMERAL);
  }

  private static synchronized boolean claimedRange(int base, int count) {
    for (int port = base; port < base + count; port++) {
      if (!claimed(port)) {
        for (int held = base; held < port; held++) {
          release(held);
        }
        return false;
      }
    }
    return true;
  }

  private static synchronized int some() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = LOWEST + RANDOM.nextInt(BELOW_EPHEMERAL - LOWEST);
      if (claimed(port)) {
        return port;
      }
    }
    throw new IOException("no free port on loopback between " + LOWEST + " and " + BELOW_EPHEMERAL);
  }

  /** Reserves {@code port} if no JVM holds it yet and nothing listens on it now. */
  private static boolean claimed(int port) {
    if (RESERVED.containsKey(port) || !reserve(port)) {
      return false;
    }
    try (ServerSocket socket = new ServerSocket(port)) {
      return true;
    } catch (IOException taken) {
      release(port);
      return false;
    }
  }

  /** Locks the port's file; false when another JVM holds it (or it cannot be locked). */
  private static boolean reserve(int port) {
    try {
      Files.createDirectories(RESERVATIONS);
      FileChannel channel = FileChannel.open(RESERVATIONS.resolve(Integer.toString(port)), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        return false;
      }
      RESERVED.put(port, lock);
      return true;
    } catch (IOException | OverlappingFileLockException e) {
      return false;
    }
  }

  private static void release(int port) {
    FileLock lock = RESERVED.remove(port);
    if (lock != null) {
      try {
        lock.channel().close();
      } catch (IOException e) {
        // The lock goes with the JVM anyway.
      }
    }
  }
}
