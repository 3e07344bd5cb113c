package io.evenkeel.cluster.options;

import picocli.CommandLine.Option;

/**
 * The flags of the shards a client of the cluster reads or writes, declared once: how many there are, and where
 * their primaries are. A picocli mixin; {@link #settings} is what the process runs by, and {@link
 * PlacementSettings#toArgs} writes it back as these flags.
 */
public final class PlacementOptions {
  public static final String SHARDS = "--shards";
  public static final String PLACEMENT = "--placement";

  // A process with a default says so in its own description.
  @Option(names = SHARDS, description = "The number of shards N of the cluster.")
  private int numShards;

  @Option(names = PLACEMENT, description = "Where each shard's primary is (required): host:port=shards,..., e.g."
      + " 127.0.0.1:7001=0-5,127.0.0.1:7002=6-11, or 'zookeeper': the cluster state under --zookeeper-root, followed"
      + " live (primaries move with failover)")
  private String placement;

  /** Flags with no default: both must be given. */
  public PlacementOptions() {}

  /** Flags whose {@code --shards} defaults to {@code numShards}. */
  public static PlacementOptions withDefaultShards(int numShards) {
    PlacementOptions options = new PlacementOptions();
    // picocli takes an option field's value before parsing as its default.
    options.numShards = numShards;
    return options;
  }

  /** The flags as parsed, unchecked: see {@link PlacementSettings#requireGiven}. */
  public PlacementSettings settings() {
    return new PlacementSettings(numShards, placement);
  }
}
