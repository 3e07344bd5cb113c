package io.evenkeel.launcher;

import io.evenkeel.launcher.cli.UserError;
import io.evenkeel.launcher.load.LoadCommand;
import io.evenkeel.launcher.local.AddServerCommand;
import io.evenkeel.launcher.local.LocalCommand;
import io.evenkeel.launcher.sql.SqlCommand;
import io.evenkeel.schemas.codec.AvroTrust;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The one entry point behind {@code bin/evenkeel}. */
@Command(name = "evenkeel", mixinStandardHelpOptions = true, version = "evenkeel 0.1.0-SNAPSHOT",
    description = {"Evenkeel on one machine: a local stack, a bulk loader and a SQL shell.",
        "bin/evenkeel cdc captures a MySQL or MariaDB table into Kafka (bin/evenkeel cdc --help).",
        "bin/evenkeel translog repairs a stopped shard server's corrupt translog (bin/evenkeel translog --help).",
        "bin/evenkeel submit runs the ingest job on a Flink cluster, bin/evenkeel savepoint takes a savepoint of it or "
            + "stops it with one (bin/evenkeel submit --help)."},
    subcommands = {LocalCommand.class, AddServerCommand.class, LoadCommand.class, SqlCommand.class,
        CommandLine.HelpCommand.class})
public final class Evenkeel implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    AvroTrust.install();
    CommandLine commandLine = new CommandLine(new Evenkeel());
    // A bad value the user gave (a port out of range, a file that is not there) is a one-line message, not a trace.
    commandLine.setExecutionExceptionHandler((e, line, parsed) -> {
      if (e instanceof UserError) {
        line.getErr().println(line.getCommandName() + ": " + e.getMessage());
        return CommandLine.ExitCode.USAGE;
      }
      throw e;
    });
    System.exit(commandLine.execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
