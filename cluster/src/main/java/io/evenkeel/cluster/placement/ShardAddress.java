package io.evenkeel.cluster.placement;

/** Where a shard server listens for gRPC. */
public record ShardAddress(String host, int port) {
  public ShardAddress {
    if (host == null || host.isBlank() || port < 1 || port > 65_535) {
      throw new IllegalArgumentException("a shard server address needs a host and a port in [1, 65535]; got: "
          + host + ":" + port);
    }
  }

  /** "host:port". */
  public static ShardAddress parse(String text) {
    int colon = text.lastIndexOf(':');
    try {
      return new ShardAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("a shard server address is host:port; got: '" + text + "'");
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
