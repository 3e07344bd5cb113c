package io.evenkeel.shard.index;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.search.ReferenceManager;

/**
 * The rows written since the searcher last refreshed, so the version check of the next write sees them before a
 * refresh does (Elasticsearch's idea). Two maps: writes go to {@code current}; when a refresh starts, {@code
 * current} becomes {@code old} (still consulted, as the refresh may not cover it yet); once the refreshed searcher
 * is in place, {@code old} is dropped, since that searcher holds every write that preceded the refresh.
 *
 * <p>Order matters: a write updates the IndexWriter first and this map second, and a lookup reads this map first and
 * acquires the searcher second; {@link ReferenceManager} swaps in the new searcher before it calls {@link
 * #afterRefresh}.
 */
final class LiveVersionMap implements ReferenceManager.RefreshListener {
  private record Maps(Map<RowKey, StoredRow> current, Map<RowKey, StoredRow> old) {}

  private volatile Maps maps = new Maps(new ConcurrentHashMap<>(), Map.of());

  StoredRow get(RowKey key) {
    Maps m = maps;
    StoredRow row = m.current.get(key);
    return row != null ? row : m.old.get(key);
  }

  void put(RowKey key, StoredRow row) {
    maps.current.put(key, row);
  }

  @Override
  public void beforeRefresh() {
    maps = new Maps(new ConcurrentHashMap<>(), maps.current);
  }

  @Override
  public void afterRefresh(boolean didRefresh) {
    maps = new Maps(maps.current, Map.of());
  }
}
