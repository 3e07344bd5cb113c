package io.evenkeel.benchmarks.replay;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a Single's-Day trace holds, fixed by its parameters and seed (the same parameters give the same changes, change
 * for change): {@code seconds} of changes at {@code rate} a second, {@code surgeFactor} times that for the first {@code
 * surgeSeconds} (the kickoff), from {@code tenants} tenants with Zipf(θ) write shares, {@code updateShare} of them
 * updates of recent rows, and a new group of hot tenants at each of {@code hotspotMoves} (seconds into the trace).
 * Stored in the trace file's metadata, so a replay can say what it replays.
 */
public record TraceSpec(double seconds, double rate, double surgeFactor, double surgeSeconds, double theta,
    int tenants, double updateShare, double[] hotspotMoves, long seed) {
  private static final String PREFIX = "evenkeel.trace.";

  public TraceSpec {
    if (!(seconds > 0) || !(rate > 0) || !(surgeFactor >= 1) || !(surgeSeconds >= 0) || !(theta >= 0)
        || tenants < 1 || !(updateShare >= 0 && updateShare < 1)) {
      throw new IllegalArgumentException("a trace needs seconds > 0, rate > 0, surge factor >= 1, surge seconds >= 0,"
          + " theta >= 0, tenants >= 1 and an update share in [0, 1); got: " + describe(seconds, rate, surgeFactor,
          surgeSeconds, theta, tenants, updateShare, hotspotMoves, seed));
    }
    hotspotMoves = hotspotMoves.clone();
  }

  /** The rate at {@code second} into the trace. */
  public double rateAt(double second) {
    return second < surgeSeconds ? rate * surgeFactor : rate;
  }

  public Map<String, String> toMetadata() {
    Map<String, String> metadata = new HashMap<>();
    metadata.put(PREFIX + "seconds", Double.toString(seconds));
    metadata.put(PREFIX + "rate", Double.toString(rate));
    metadata.put(PREFIX + "surge-factor", Double.toString(surgeFactor));
    metadata.put(PREFIX + "surge-seconds", Double.toString(surgeSeconds));
    metadata.put(PREFIX + "theta", Double.toString(theta));
    metadata.put(PREFIX + "tenants", Integer.toString(tenants));
    metadata.put(PREFIX + "update-share", Double.toString(updateShare));
    metadata.put(PREFIX + "hotspot-moves", Arrays.toString(hotspotMoves).replaceAll("[\\[\\] ]", ""));
    metadata.put(PREFIX + "seed", Long.toString(seed));
    return metadata;
  }

  /** The spec from a trace file's metadata (throws {@link IllegalArgumentException} naming a missing key). */
  public static TraceSpec fromMetadata(Map<String, String> metadata) {
    String moves = get(metadata, "hotspot-moves");
    return new TraceSpec(Double.parseDouble(get(metadata, "seconds")), Double.parseDouble(get(metadata, "rate")),
        Double.parseDouble(get(metadata, "surge-factor")), Double.parseDouble(get(metadata, "surge-seconds")),
        Double.parseDouble(get(metadata, "theta")), Integer.parseInt(get(metadata, "tenants")),
        Double.parseDouble(get(metadata, "update-share")),
        moves.isEmpty() ? new double[0] : Arrays.stream(moves.split(",")).mapToDouble(Double::parseDouble).toArray(),
        Long.parseLong(get(metadata, "seed")));
  }

  private static String get(Map<String, String> metadata, String key) {
    String value = metadata.get(PREFIX + key);
    if (value == null) {
      throw new IllegalArgumentException("not an Evenkeel trace: no " + PREFIX + key + " in its metadata");
    }
    return value;
  }

  @Override
  public String toString() {
    return describe(seconds, rate, surgeFactor, surgeSeconds, theta, tenants, updateShare, hotspotMoves, seed);
  }

  private static String describe(double seconds, double rate, double surgeFactor, double surgeSeconds, double theta,
      int tenants, double updateShare, double[] hotspotMoves, long seed) {
    return String.format(Locale.ROOT, "%.0f s at %,.0f changes/s (x%.1f for the first %.0f s), θ %.1f over %,d"
        + " tenants, %.0f%% updates, hot group moving at %s s, seed %d", seconds, rate, surgeFactor, surgeSeconds,
        theta, tenants, 100 * updateShare, hotspotMoves == null ? "[]" : Arrays.toString(hotspotMoves), seed);
  }
}
