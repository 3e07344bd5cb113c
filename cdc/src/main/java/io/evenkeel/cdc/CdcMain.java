package io.evenkeel.cdc;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Runs a CDC runner until it is stopped (SIGTERM or Ctrl-C close it cleanly, storing its offsets). */
@Command(name = "cdc", mixinStandardHelpOptions = true,
    description = "Captures a MySQL or MariaDB table with Debezium (snapshot, then binlog) and publishes Debezium's "
        + "change events to Kafka, for the ingest job's CDC source.")
public final class CdcMain implements Callable<Integer> {
  @Mixin
  private CdcSettings settings = new CdcSettings();

  @Override
  public Integer call() throws Exception {
    try {
      settings.validate();
    } catch (IllegalArgumentException e) {
      System.err.println("cdc: " + e.getMessage());
      return 2;
    }
    CdcRunner runner;
    try {
      runner = CdcRunner.start(settings);
    } catch (IllegalArgumentException e) {
      System.err.println("cdc: " + e.getMessage());
      return 2;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        runner.close();
      } catch (Exception e) {
        System.err.println("cdc: closing failed: " + e);
      }
    }, "cdc-shutdown"));
    System.out.println("cdc: capturing " + settings.table + " into topic " + runner.topic());
    try {
      runner.stopped().join();
      return 0;
    } catch (CompletionException e) {
      System.err.println("cdc: " + e.getCause().getMessage());
      return 1;
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new CdcMain()).execute(args));
  }
}
