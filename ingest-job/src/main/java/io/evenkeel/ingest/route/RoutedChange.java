package io.evenkeel.ingest.route;

import io.evenkeel.schemas.TransactionLogChange;

/** A change with the shard the rules give its row, and whether its tenant is hot (spread over more than one shard). */
public class RoutedChange {
  public int shard;
  public boolean hot;
  public TransactionLogChange change;

  public RoutedChange() {}

  public RoutedChange(int shard, boolean hot, TransactionLogChange change) {
    this.shard = shard;
    this.hot = hot;
    this.change = change;
  }
}
