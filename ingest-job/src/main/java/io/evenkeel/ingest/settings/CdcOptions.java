package io.evenkeel.ingest.settings;

import picocli.CommandLine.Option;

/** The ingest job's flags of its second source, Debezium's change events of a captured table. A picocli mixin. */
public final class CdcOptions {
  @Option(names = "--cdc-topic", paramLabel = "TOPIC",
      description = "Also read Debezium's change events of a MySQL or MariaDB table from this topic (bin/evenkeel cdc"
          + " publishes them to <prefix>.<database>.<table>).")
  private String cdcTopic;

  @Option(names = "--cdc-columns", defaultValue = "", paramLabel = "MAPPING",
      description = "Which column of the captured table feeds each column of transaction_logs where the names"
          + " differ: tenant_id=seller_id,row_id=order_id,created_time=created_at (the CDC runner's --columns).")
  private String cdcColumns = "";

  @Option(names = "--cdc-datetime-zone", defaultValue = "UTC", paramLabel = "ZONE",
      description = "The time zone of the captured table's DATETIME values (TIMESTAMP values are instants already)."
          + " (default: ${DEFAULT-VALUE})")
  private String cdcDatetimeZone = "UTC";

  /** The flags as parsed, unchecked. */
  CdcSettings settings() {
    return new CdcSettings(cdcTopic, cdcColumns, cdcDatetimeZone);
  }
}
