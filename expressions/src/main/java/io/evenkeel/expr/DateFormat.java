package io.evenkeel.expr;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.time.temporal.ChronoField;
import java.util.Locale;

/** MySQL's {@code DATE_FORMAT} specifiers (English names, as with MySQL's default lc_time_names). */
final class DateFormat {
  private DateFormat() {}

  static String format(SqlDateTime dateTime, String pattern) {
    LocalDateTime t = dateTime.value();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c != '%' || i + 1 == pattern.length()) {
        out.append(c);
        continue;
      }
      char spec = pattern.charAt(++i);
      switch (spec) {
        case 'Y' -> out.append(pad(t.getYear(), 4));
        case 'y' -> out.append(pad(t.getYear() % 100, 2));
        case 'm' -> out.append(pad(t.getMonthValue(), 2));
        case 'c' -> out.append(t.getMonthValue());
        case 'd' -> out.append(pad(t.getDayOfMonth(), 2));
        case 'e' -> out.append(t.getDayOfMonth());
        case 'D' -> out.append(t.getDayOfMonth()).append(ordinalSuffix(t.getDayOfMonth()));
        case 'H' -> out.append(pad(t.getHour(), 2));
        case 'k' -> out.append(t.getHour());
        case 'h', 'I' -> out.append(pad(hour12(t), 2));
        case 'l' -> out.append(hour12(t));
        case 'i' -> out.append(pad(t.getMinute(), 2));
        case 's', 'S' -> out.append(pad(t.getSecond(), 2));
        case 'f' -> out.append(pad(t.getNano() / 1_000, 6));
        case 'p' -> out.append(t.getHour() < 12 ? "AM" : "PM");
        case 'r' -> out.append(pad(hour12(t), 2)).append(':').append(pad(t.getMinute(), 2)).append(':')
            .append(pad(t.getSecond(), 2)).append(t.getHour() < 12 ? " AM" : " PM");
        case 'T' -> out.append(pad(t.getHour(), 2)).append(':').append(pad(t.getMinute(), 2)).append(':')
            .append(pad(t.getSecond(), 2));
        case 'j' -> out.append(pad(t.getDayOfYear(), 3));
        case 'M' -> out.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        case 'b' -> out.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
        case 'W' -> out.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH));
        case 'a' -> out.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH));
        case 'w' -> out.append(t.get(ChronoField.DAY_OF_WEEK) % 7);
        // MySQL prints any other character after % as itself (%% is a percent sign).
        default -> out.append(spec);
      }
    }
    return out.toString();
  }

  private static int hour12(LocalDateTime t) {
    int hour = t.getHour() % 12;
    return hour == 0 ? 12 : hour;
  }

  private static String pad(int value, int width) {
    String digits = Integer.toString(value);
    return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
  }

  private static String ordinalSuffix(int day) {
    if (day >= 11 && day <= 13) {
      return "th";
    }
    return switch (day % 10) {
      case 1 -> "st";
      case 2 -> "nd";
      case 3 -> "rd";
      default -> "th";
    };
  }
}
