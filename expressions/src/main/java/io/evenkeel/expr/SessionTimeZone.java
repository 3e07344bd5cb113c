package io.evenkeel.expr;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request's session time zone as MySQL's {@code time_zone} names it: an offset ({@code '+08:00'}, {@code '-5:00'},
 * from -13:59 to +14:00), or a zone's name ({@code 'UTC'}, {@code 'Asia/Shanghai'}, {@code 'Europe/Berlin'}, with its
 * daylight-saving rules). Date-times are wall-clock times in it: {@code FROM_UNIXTIME} and {@code UNIX_TIMESTAMP}
 * convert between them and the epoch.
 */
public final class SessionTimeZone {
  /** Where no request names one. */
  public static final ZoneId DEFAULT = ZoneOffset.UTC;
  private static final Pattern OFFSET = Pattern.compile("([+-])(\\d{1,2}):(\\d{2})");
  private static final int MAX_MINUTES_EAST = 14 * 60;
  private static final int MAX_MINUTES_WEST = 13 * 60 + 59;

  private SessionTimeZone() {}

  /** The zone {@code name} names; IllegalArgumentException saying what is wrong with one that names none. */
  public static ZoneId parse(String name) {
    Matcher offset = OFFSET.matcher(name.strip());
    if (offset.matches()) {
      int minutes = Integer.parseInt(offset.group(2)) * 60 + Integer.parseInt(offset.group(3));
      boolean east = offset.group(1).equals("+");
      if (Integer.parseInt(offset.group(3)) > 59 || minutes > (east ? MAX_MINUTES_EAST : MAX_MINUTES_WEST)) {
        throw new IllegalArgumentException("the time zone offset " + name + " is out of range (-13:59 to +14:00)");
      }
      return ZoneOffset.ofTotalSeconds((east ? 1 : -1) * minutes * 60);
    }
    try {
      return ZoneId.of(name.strip());
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("unknown time zone '" + name + "': write an offset such as '+08:00' or a "
          + "zone's name such as 'Asia/Shanghai'");
    }
  }
}
