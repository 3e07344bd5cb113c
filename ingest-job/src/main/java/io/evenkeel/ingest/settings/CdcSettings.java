package io.evenkeel.ingest.settings;

import io.evenkeel.schemas.table.ColumnMapping;
import java.io.Serializable;
import java.time.DateTimeException;
import java.time.ZoneId;

/**
 * The job's CDC source, if any.
 *
 * @param topic the topic of Debezium's change events, or null (or blank) for none
 * @param columns which column of the captured table feeds each column of transaction_logs ({@link ColumnMapping})
 * @param zone the time zone of the captured table's DATETIME values
 */
public record CdcSettings(String topic, String columns, String zone) implements Serializable {
  /** Whether the job also reads CDC change events. */
  public boolean enabled() {
    return topic != null && !topic.isBlank();
  }

  public ColumnMapping columnMapping() {
    return ColumnMapping.parse(columns);
  }

  public ZoneId datetimeZone() {
    try {
      return ZoneId.of(zone);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("--cdc-datetime-zone: " + e.getMessage(), e);
    }
  }
}
