package io.evenkeel.workload;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.util.List;
import java.util.Random;

/**
 * A Single's-Day-shaped stream of changes at the current time: inserts of new rows from Zipf(θ)-skewed tenants
 * ({@link RowGenerator}), and repeated updates of recent rows (an order is paid, shipped, received: ESDB's
 * transaction logs change a few times soon after creation), each with the next version of its row. Half of the
 * updates are partial (status only), half full after-images with a new quantity. {@link #moveHotspot} gives the
 * popularity ranks to other tenants [ESDB fig. 14].
 *
 * <p>The rate shape (the kickoff surge) belongs to the replayer; this class only decides what each change is.
 */
public final class SinglesDayTrace {
  /** How many recent rows updates pick from: orders change soon after they are placed. */
  static final int RECENT_ROWS = 10_000;

  private final RowGenerator rows;
  private final Random random;
  private final double updateShare;
  private final long firstRowId;
  // Ring of recent rows: tenant, row id, created time, version of the last change sent.
  private final long[] recentTenant = new long[RECENT_ROWS];
  private final long[] recentRow = new long[RECENT_ROWS];
  private final long[] recentCreated = new long[RECENT_ROWS];
  private final long[] recentVersion = new long[RECENT_ROWS];
  private int recentCount;
  private int recentNext;
  private long inserts;

  /**
   * @param firstRowId row ids count up from here; a replayer restarted on the same data passes a larger one so that
   *     its inserts are new rows, not stale versions of old ones
   * @param updateShare the fraction of changes that update a recent row
   */
  public SinglesDayTrace(long seed, int tenants, double theta, double updateShare, long firstRowId) {
    if (!(updateShare >= 0 && updateShare < 1)) {
      throw new IllegalArgumentException("update share must be in [0, 1); got: " + updateShare);
    }
    this.rows = new RowGenerator(seed, tenants, theta);
    this.random = new Random(seed);
    this.updateShare = updateShare;
    this.firstRowId = firstRowId;
  }

  public ZipfTenants tenants() {
    return rows.tenants();
  }

  /** Reassigns the popularity ranks: the hot group of tenants moves to others. */
  public void moveHotspot() {
    rows.tenants().remap();
  }

  /** The next change, created or modified at {@code now}. */
  public TransactionLogChange next(long now) {
    if (recentCount > 0 && random.nextDouble() < updateShare) {
      return update(random.nextInt(recentCount), now);
    }
    TransactionLogChange insert = TransactionLogChange.newBuilder(rows.next())
        .setRowId(firstRowId + inserts++)
        .setCreatedTime(now)
        .setModifiedTime(now)
        .build();
    recentTenant[recentNext] = insert.getTenantId();
    recentRow[recentNext] = insert.getRowId();
    recentCreated[recentNext] = now;
    recentVersion[recentNext] = insert.getVersion();
    recentNext = (recentNext + 1) % RECENT_ROWS;
    recentCount = Math.min(recentCount + 1, RECENT_ROWS);
    return insert;
  }

  private TransactionLogChange update(int slot, long now) {
    long version = ++recentVersion[slot];
    TransactionLogChange.Builder change = TransactionLogChange.newBuilder()
        .setOp(ChangeOp.UPDATE)
        .setTenantId(recentTenant[slot])
        .setRowId(recentRow[slot])
        .setCreatedTime(recentCreated[slot])
        .setModifiedTime(now)
        .setVersion(version)
        .setStatus(random.nextInt(6));
    if (random.nextBoolean()) {
      return change.setSetColumns(List.of("status")).build();
    }
    TransactionLogChange image = rows.next();
    return change
        .setBuyerId(image.getBuyerId())
        .setSellerNick("seller-" + recentTenant[slot])
        .setBuyerNick(image.getBuyerNick())
        .setTitle(image.getTitle())
        .setPrice(image.getPrice())
        .setQuantity(image.getQuantity())
        .setGroupId(image.getGroupId())
        .setAttributes(image.getAttributes())
        .build();
  }
}
