package io.evenkeel.benchmarks.skew;

import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.workload.RowGenerator;
import io.evenkeel.workload.ZipfTenants;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The rows of a workload in their order, row i due at {@code start + i / rate}: writers take the rows that are due,
 * so rows are offered at the rate whether or not the system keeps up (an open loop), and a row's delay counts from
 * when it was due, not from when a writer got to it. The same seed gives both systems the same rows.
 *
 * <p>Tenants are grouped by popularity rank: the {@value #HOT_TENANTS} hottest, and the small ones (ranks beyond a
 * tenth of all). About {@code probesPerSecond} rows of each group a second are marked as probes, whose
 * write-to-searchable delay is measured.
 */
final class ScheduledRows {
  static final int HOT_TENANTS = 5;
  /** The surge tenant's popularity rank: an ordinary tenant until it surges. */
  static final int SURGE_RANK = 50;

  enum Group { HOT, SMALL, OTHER }

  /** A row, when it was due (nanoTime), its tenant's group, and whether it is a probe. */
  record Due(TransactionLogChange row, long dueNanos, Group group, boolean probe) {}

  private final SkewWorkload workload;
  private final RowGenerator generator;
  private final SplittableRandom random;
  private final long startNanos;
  private final long startMillis;
  private final long rowIdBase;
  private final long tenantBase;
  private final long total;
  private final long surgeTenant;
  private final double hotProbeChance;
  private final double smallProbeChance;
  private final int smallFromRank;
  private final int[] rankOfTenant;
  private long next;

  /**
   * Row ids start at {@code rowIdBase} and tenant ids at {@code tenantBase}, so that runs on one system never share a
   * row or a tenant.
   */
  ScheduledRows(SkewWorkload workload, long seed, long rowIdBase, long tenantBase, double probesPerSecond,
      long startNanos) {
    this.workload = workload;
    this.generator = new RowGenerator(seed, workload.tenants(), workload.theta());
    this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
    this.startNanos = startNanos;
    this.startMillis = System.currentTimeMillis();
    this.rowIdBase = rowIdBase;
    this.tenantBase = tenantBase;
    this.total = workload.rows();
    ZipfTenants tenants = generator.tenants();
    this.rankOfTenant = new int[workload.tenants()];
    for (int rank = 1; rank <= workload.tenants(); rank++) {
      rankOfTenant[(int) tenants.tenantAtRank(rank)] = rank;
    }
    this.surgeTenant = tenantBase + tenants.tenantAtRank(Math.min(SURGE_RANK, workload.tenants()));
    this.smallFromRank = Math.max(HOT_TENANTS + 1, workload.tenants() / 10 + 1);
    double[] shares = shares(workload.tenants(), workload.theta());
    double hotShare = 0;
    double smallShare = 0;
    for (int rank = 1; rank <= workload.tenants(); rank++) {
      if (rank <= HOT_TENANTS) {
        hotShare += shares[rank - 1];
      } else if (rank >= smallFromRank) {
        smallShare += shares[rank - 1];
      }
    }
    this.hotProbeChance = Math.min(1, probesPerSecond / (workload.rate() * hotShare));
    this.smallProbeChance = Math.min(1, probesPerSecond / (workload.rate() * smallShare));
  }

  /** Zipf(θ) shares of ranks 1..n. */
  private static double[] shares(int n, double theta) {
    double[] shares = new double[n];
    double norm = 0;
    for (int rank = 1; rank <= n; rank++) {
      shares[rank - 1] = Math.pow(rank, -theta);
      norm += shares[rank - 1];
    }
    for (int i = 0; i < n; i++) {
      shares[i] /= norm;
    }
    return shares;
  }

  /** The tenants of a group, hottest first: the hot ones, or {@code count} small ones spread over the tail. */
  List<Long> tenants(Group group, int count) {
    ZipfTenants tenants = generator.tenants();
    List<Long> ids = new ArrayList<>();
    if (group == Group.HOT) {
      for (int rank = 1; rank <= Math.min(HOT_TENANTS, workload.tenants()); rank++) {
        ids.add(tenantBase + tenants.tenantAtRank(rank));
      }
    } else {
      int tail = workload.tenants() - smallFromRank + 1;
      for (int i = 0; i < count && i < tail; i++) {
        ids.add(tenantBase + tenants.tenantAtRank(smallFromRank + (int) ((long) i * tail / count)));
      }
    }
    return ids;
  }

  long surgeTenant() {
    return surgeTenant;
  }

  /** When row i is due. */
  long dueNanos(long i) {
    return startNanos + (long) (i * (TimeUnit.SECONDS.toNanos(1) / workload.rate()));
  }

  /** Up to {@code max} rows due by {@code nowNanos}, in order; empty when none is due yet. */
  synchronized List<Due> take(int max, long nowNanos) {
    List<Due> due = new ArrayList<>();
    while (due.size() < max && next < total && dueNanos(next) <= nowNanos) {
      due.add(row(next++));
    }
    return due;
  }

  /** Whether every row has been taken. */
  synchronized boolean exhausted() {
    return next >= total;
  }

  /** Rows due by {@code nowNanos} but not taken yet: the writers' backlog. */
  synchronized long backlog(long nowNanos) {
    long dueBy = Math.min(total, (long) Math.floor((nowNanos - startNanos) / 1e9 * workload.rate()) + 1);
    return Math.max(0, dueBy - next);
  }

  private Due row(long i) {
    long due = dueNanos(i);
    TransactionLogChange generated = generator.next();
    long tenant = tenantBase + generated.getTenantId();
    TransactionLogChange.Builder row = TransactionLogChange.newBuilder(generated).setTenantId(tenant)
        .setSellerNick("seller-" + tenant);
    double second = (due - startNanos) / 1e9;
    if (workload.hasSurge() && second >= workload.surgeStart() && second < workload.surgeEnd()
        && random.nextDouble() < workload.surgeShare()) {
      row.setTenantId(surgeTenant).setSellerNick("seller-" + surgeTenant);
    }
    long created = startMillis + TimeUnit.NANOSECONDS.toMillis(due - startNanos);
    row.setRowId(rowIdBase + i).setCreatedTime(created).setModifiedTime(created);
    int rank = rankOfTenant[(int) (row.getTenantId() - tenantBase)];
    Group group = rank <= HOT_TENANTS ? Group.HOT : rank >= smallFromRank ? Group.SMALL : Group.OTHER;
    boolean probe = group == Group.HOT ? random.nextDouble() < hotProbeChance
        : group == Group.SMALL && random.nextDouble() < smallProbeChance;
    return new Due(row.build(), due, group, probe);
  }
}
