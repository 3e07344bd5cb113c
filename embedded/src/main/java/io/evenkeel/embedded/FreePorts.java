package io.evenkeel.embedded;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Random;

/**
 * Loopback ports free now for a server a test or benchmark starts moments later. They are taken below Linux's
 * ephemeral range (32768 and up), where the kernel hands out the local ports of client connections and of servers
 * bound to port 0: a port chosen there can be taken by any connection of this machine before the server binds it,
 * which on a busy machine, with a JVM to start first, happens.
 */
public final class FreePorts {
  private static final int LOWEST = 20_000;
  private static final int BELOW_EPHEMERAL = 32_768;
  private static final Random RANDOM = new Random();

  private FreePorts() {}

  /** One free port. */
  public static int one() throws IOException {
    return pick(1)[0];
  }

  /** {@code count} distinct free ports: each stays bound until all are chosen. */
  public static int[] pick(int count) throws IOException {
    ServerSocket[] sockets = new ServerSocket[count];
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        sockets[i] = bindSome();
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        if (socket != null) {
          socket.close();
        }
      }
    }
  }

  /** The first of {@code count} consecutive ports that are all free now. */
  public static int consecutive(int count) throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int base = LOWEST + RANDOM.nextInt(BELOW_EPHEMERAL - LOWEST - count);
      if (allFree(base, count)) {
        return base;
      }
    }
    throw new IOException("no free range of " + count + " ports on loopback between " + LOWEST + " and "
        + BELOW_EPHEMERAL);
  }

  private static boolean allFree(int base, int count) {
    for (int port = base; port < base + count; port++) {
      try (ServerSocket socket = new ServerSocket(port)) {
        // free
      } catch (IOException taken) {
        return false;
      }
    }
    return true;
  }

  private static ServerSocket bindSome() throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = LOWEST + RANDOM.nextInt(BELOW_EPHEMERAL - LOWEST);
      try {
        return new ServerSocket(port);
      } catch (IOException taken) {
        // another one
      }
    }
    throw new IOException("no free port on loopback between " + LOWEST + " and " + BELOW_EPHEMERAL);
  }
}
