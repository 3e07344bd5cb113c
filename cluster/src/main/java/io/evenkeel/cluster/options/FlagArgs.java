package io.evenkeel.cluster.options;

import java.util.ArrayList;
import java.util.List;

/** A process's command-line arguments built flag by flag, leaving out the flags whose value was not given. */
final class FlagArgs {
  private final List<String> args = new ArrayList<>();

  /** {@code flag value}, unless {@code value} is null. */
  FlagArgs add(String flag, Object value) {
    if (value != null) {
      args.add(flag);
      args.add(value.toString());
    }
    return this;
  }

  List<String> toList() {
    return List.copyOf(args);
  }
}
