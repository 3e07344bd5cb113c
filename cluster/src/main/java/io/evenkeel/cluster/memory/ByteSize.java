package io.evenkeel.cluster.memory;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes as operators write them in flags ({@code 64m}, {@code 1g}, {@code 512k}, {@code 1048576}). */
public final class ByteSize {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)i?b?", Pattern.CASE_INSENSITIVE);

  private ByteSize() {}

  /** {@code text} in bytes; a suffix k, m or g multiplies by 1024, 1024² or 1024³. */
  public static long parse(String text) {
    Matcher matcher = SIZE.matcher(text.strip());
    if (!matcher.matches()) {
      throw new IllegalArgumentException("a size is a number of bytes with an optional k, m or g; got: " + text);
    }
    long number = Long.parseLong(matcher.group(1));
    int shift = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      default -> 0;
    };
    if (number > Long.MAX_VALUE >> shift) {
      throw new IllegalArgumentException("the size " + text + " is too large");
    }
    return number << shift;
  }

  /** {@code bytes} for a message: 64 MiB, 1.5 GiB, 900 KiB, 12 B. */
  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return (value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value)
        : String.format(Locale.ROOT, "%.1f", value)) + " " + units[unit];
  }
}
