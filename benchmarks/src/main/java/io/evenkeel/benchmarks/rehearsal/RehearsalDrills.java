package io.evenkeel.benchmarks.rehearsal;

import io.evenkeel.benchmarks.experiments.SearchableWatch;
import io.evenkeel.embedded.ChildProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rehearsal's drills, each under a steady load that a {@link SearchableWatch} follows: one engine's process lost
 * with SIGKILL and started again as a supervisor would, or every process restarted in turn.
 */
public final class RehearsalDrills {
  private static final Duration REPAIR_TIMEOUT = Duration.ofMinutes(5);
  /**
   * How long a fault stands before its repair: past the longest failover a fault can start, a lost JobManager's
   * ZooKeeper session (10 s) and the job's recovery after it.
   */
  static final Duration OBSERVE = Duration.ofSeconds(40);

  private RehearsalDrills() {}

  /** A drill on a running rehearsal. */
  @FunctionalInterface
  interface Kind {
    Drill run(Rehearsal rehearsal, SearchableWatch watch) throws Exception;
  }

  /** Every drill by name, in the order a deployment's engines stack up. */
  static final Map<String, Kind> ALL = drills();

  private static Map<String, Kind> drills() {
    Map<String, Kind> all = new LinkedHashMap<>();
    all.put("zookeeper", (r, w) -> zooKeeperLeader(r, w, OBSERVE));
    all.put("kafka", (r, w) -> kafkaNode(r, w, OBSERVE));
    all.put("taskmanager", (r, w) -> taskManager(r, w, OBSERVE));
    all.put("jobmanager", (r, w) -> leadingJobManager(r, w, OBSERVE));
    all.put("shardserver", (r, w) -> shardServer(r, w, OBSERVE));
    all.put("rolling", RehearsalDrills::rollingRestart);
    return Collections.unmodifiableMap(all);
  }

  /** The drills named (keys of {@link #ALL}) in {@link #ALL}'s order, each printed as it ends. */
  public static List<Drill> run(Collection<String> names, Rehearsal rehearsal, SearchableWatch watch,
      PrintStream out) throws Exception {
    List<Drill> drills = new ArrayList<>();
    for (Map.Entry<String, Kind> kind : ALL.entrySet()) {
      if (names.contains(kind.getKey())) {
        drills.add(print(out, kind.getValue().run(rehearsal, watch)));
      }
    }
    return drills;
  }

  /** The ensemble's leader killed; started again once ingest has resumed. */
  public static Drill zooKeeperLeader(Rehearsal rehearsal, SearchableWatch watch, Duration observe)
      throws Exception {
    int leader = rehearsal.zookeeper().leader();
    if (leader < 0) {
      throw new IOException("no ZooKeeper server leads: " + rehearsal.zookeeper().modes());
    }
    return Drill.run("kill -9 of the ZooKeeper leader", watch, observe, () -> rehearsal.zookeeper().kill(leader),
        () -> rehearsal.zookeeper().restart(leader));
  }

  /** A Kafka node killed; started again, and every partition back in sync. */
  public static Drill kafkaNode(Rehearsal rehearsal, SearchableWatch watch, Duration observe)
      throws Exception {
    int node = Rehearsal.KAFKA_NODES - 1;
    return Drill.run("kill -9 of a Kafka node", watch, observe, () -> rehearsal.kafka().kill(node), () -> {
      rehearsal.kafka().restart(node);
      rehearsal.kafka().awaitFullyReplicated(REPAIR_TIMEOUT);
    });
  }

  /** A task manager killed (the job restarts on the other from its last checkpoint); a new one started. */
  public static Drill taskManager(Rehearsal rehearsal, SearchableWatch watch, Duration observe)
      throws Exception {
    ChildProcess lost = rehearsal.flink().taskManagers().stream().filter(ChildProcess::isAlive).findFirst()
        .orElseThrow();
    return Drill.run("kill -9 of a Flink task manager", watch, observe, lost::kill, () -> {
      rehearsal.flink().startTaskManager();
      long deadline = System.nanoTime() + REPAIR_TIMEOUT.toNanos();
      while (rehearsal.flink().registeredTaskManagers() < Rehearsal.TASK_MANAGERS) {
        if (System.nanoTime() > deadline) {
          throw new IOException("the new task manager did not register in " + REPAIR_TIMEOUT);
        }
        Thread.sleep(200);
      }
    });
  }

  /** The leading JobManager killed (the standby recovers the job); started again as the standby. */
  public static Drill leadingJobManager(Rehearsal rehearsal, SearchableWatch watch, Duration observe)
      throws Exception {
    return Drill.run("kill -9 of the leading Flink JobManager", watch, observe, rehearsal::killLeadingJobManager,
        rehearsal::restartStoppedJobManagers);
  }

  /** A shard server killed (its primaries' replicas promoted); started again, every shard with its replica again. */
  public static Drill shardServer(Rehearsal rehearsal, SearchableWatch watch, Duration observe)
      throws Exception {
    return Drill.run("kill -9 of a shard server", watch, observe, () -> rehearsal.shardServer(0).kill(), () -> {
      rehearsal.awaitPrimaries(REPAIR_TIMEOUT); // it comes back as a replica of what it led
      rehearsal.restartShardServer(0);
      rehearsal.awaitShardsAtRest(REPAIR_TIMEOUT);
    });
  }

  /** Every process restarted in turn ({@link Rehearsal#rollingRestart}). */
  public static Drill rollingRestart(Rehearsal rehearsal, SearchableWatch watch) throws Exception {
    return Drill.run("rolling restart of every process", watch, Duration.ZERO, null, rehearsal::rollingRestart);
  }

  private static Drill print(PrintStream out, Drill drill) {
    out.printf(Locale.ROOT, "  %-40s ingest stopped %s s at most, resumed after %s s; longest write-to-searchable "
        + "%s s after the fault, %.1f s during the repair; longest without an answer %.1f s, without a row sent %.1f "
        + "s; repaired after %.1f s%n", drill.name(), Drill.seconds(drill.stoppedSeconds()),
        Drill.seconds(drill.resumedSeconds()), Drill.seconds(drill.faultStallSeconds()),
        drill.repairStallSeconds(), drill.queryGapSeconds(), drill.sendPauseSeconds(), drill.tookSeconds());
    out.flush();
    return drill;
  }
}
