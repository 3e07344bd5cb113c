package io.evenkeel.launcher.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** "90s", "5m", "1h", "500ms", or plain seconds. */
public final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    var m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)?").matcher(value.strip());
    if (!m.matches()) {
      throw new TypeConversionException("expected a duration like 90s, 5m, 1h or 500ms; got: '" + value + "'");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    Duration d = switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofSeconds(n);
    };
    if (d.isZero()) {
      throw new TypeConversionException("duration must be > 0; got: '" + value + "'");
    }
    return d;
  }
}
