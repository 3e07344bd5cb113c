package io.evenkeel.launcher.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** The TCP sockets that processes listen on, read from Linux's /proc (as {@code ss -ltnp} does). */
final class ListeningSockets {
  private static final String LISTEN = "0A";

  private ListeningSockets() {}

  /** Every listening TCP socket (IPv4 and IPv6) of the processes {@code pids}. */
  static List<InetSocketAddress> of(Set<Long> pids) throws IOException {
    Map<String, InetSocketAddress> listeningByInode = new HashMap<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(table));
      for (String line : lines.subList(1, lines.size())) {
        String[] fields = line.strip().split("\\s+");
        if (fields[3].equals(LISTEN)) {
          listeningByInode.put(fields[9], address(fields[1]));
        }
      }
    }
    List<InetSocketAddress> listening = new ArrayList<>();
    for (String inode : socketInodes(pids)) {
      InetSocketAddress address = listeningByInode.get(inode);
      if (address != null) {
        listening.add(address);
      }
    }
    return listening;
  }

  private static Set<String> socketInodes(Set<Long> pids) throws IOException {
    Set<String> inodes = new HashSet<>();
    for (long pid : pids) {
      Path fds = Path.of("/proc", Long.toString(pid), "fd");
      try (Stream<Path> links = Files.list(fds)) {
        for (Path fd : links.toList()) {
          try {
            String target = Files.readSymbolicLink(fd).toString();
            if (target.startsWith("socket:[")) {
              inodes.add(target.substring("socket:[".length(), target.length() - 1));
            }
          } catch (IOException closedMeanwhile) {
            // the descriptor was closed between listing and reading it
          }
        }
      } catch (IOException exited) {
        // the process exited meanwhile
      }
    }
    return inodes;
  }

  /** "0100007F:1E14": an address in host byte order per 32-bit word, in hex, and a port. */
  private static InetSocketAddress address(String text) throws IOException {
    String[] parts = text.split(":");
    String hex = parts[0];
    byte[] bytes = new byte[hex.length() / 2];
    for (int word = 0; word < bytes.length / 4; word++) {
      for (int i = 0; i < 4; i++) {
        int at = word * 8 + (3 - i) * 2;
        bytes[word * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
      }
    }
    return new InetSocketAddress(InetAddress.getByAddress(bytes), Integer.parseInt(parts[1], 16));
  }
}
