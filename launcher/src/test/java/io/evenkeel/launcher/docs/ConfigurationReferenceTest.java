package io.evenkeel.launcher.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cdc.CdcMain;
import io.evenkeel.ingest.IngestJobMain;
import io.evenkeel.ingest.deploy.FlinkJobCommand;
import io.evenkeel.launcher.Evenkeel;
import io.evenkeel.query.QueryServiceMain;
import io.evenkeel.shard.server.ShardServerMain;
import io.evenkeel.shard.translog.TranslogTool;
import io.evenkeel.workload.SinglesDayReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/CONFIGURATION.md is every command's {@code --help}, generated from the picocli commands themselves, so the
 * reference cannot drift from the flags: this test fails when the file differs from what the commands print, and
 * with {@code -Devenkeel.docs.write=true} it writes the file instead.
 */
class ConfigurationReferenceTest {
  private static final Path REFERENCE = Path.of(System.getProperty("user.dir")).getParent()
      .resolve("docs/CONFIGURATION.md");
  private static final String REGENERATE = "./mvnw -B -q install -DskipTests && ./mvnw -B -o test -pl launcher "
      + "-Dtest=ConfigurationReferenceTest -Devenkeel.docs.write=true";

  @Test
  void theReferenceIsWhatTheCommandsPrint() throws Exception {
    String generated = reference();
    if (Boolean.getBoolean("evenkeel.docs.write")) {
      Files.writeString(REFERENCE, generated);
    }
    assertThat(Files.readString(REFERENCE)).as("docs/CONFIGURATION.md is stale; regenerate it: " + REGENERATE)
        .isEqualTo(generated);
  }

  private static String reference() {
    StringBuilder doc = new StringBuilder();
    doc.append("# Configuration reference\n\n")
        .append("Every command's flags, as its `--help` prints them. Generated from the commands' picocli\n")
        .append("definitions by `ConfigurationReferenceTest`, which fails when this file is stale; regenerate it\n")
        .append("with:\n\n```\n").append(REGENERATE).append("\n```\n\n")
        .append("`bin/evenkeel local` starts the servers below with these flags; on other hosts, start them yourself\n")
        .append("([DEPLOYING.md](DEPLOYING.md)). `EVENKEEL_JVM_OPTIONS` in the environment adds JVM options (split at\n")
        .append("white space, after the process's own, so they win) to `bin/evenkeel` and every process it starts.\n")
        .append("`EVENKEEL_CLASS_DATA_DIR` names where the class-data archives (AppCDS) of the JVMs it starts are kept\n")
        .append("(default `~/.cache/evenkeel/class-data`; an empty value keeps none): each kind of process writes one\n")
        .append("when it first exits cleanly and starts on less CPU from then on.\n");
    section(doc, "bin/evenkeel", new CommandLine(new Evenkeel()));
    section(doc, "bin/evenkeel cdc", new CommandLine(CdcMain.class));
    section(doc, "bin/evenkeel translog", new CommandLine(TranslogTool.class));
    for (CommandLine flink : FlinkJobCommand.commandLine().getSubcommands().values()) {
      section(doc, "bin/evenkeel " + flink.getCommandName(), flink);
    }
    section(doc, "the shard server: java -jar shard-server/target/shard-server.jar",
        new CommandLine(ShardServerMain.class));
    section(doc, "the ingest job: io.evenkeel.ingest.IngestJobMain", new CommandLine(IngestJobMain.class));
    section(doc, "the query service: java -jar query-service/target/query-service.jar",
        new CommandLine(QueryServiceMain.class));
    section(doc, "the Single's-Day replayer: io.evenkeel.workload.SinglesDayReplayer",
        new CommandLine(SinglesDayReplayer.class));
    return doc.toString();
  }

  /** A command's usage, then each of its subcommands' under their full names. */
  private static void section(StringBuilder doc, String title, CommandLine command) {
    command.setUsageHelpWidth(120);
    command.setUsageHelpAutoWidth(false);
    doc.append("\n## ").append(title).append("\n\n```text\n")
        .append(command.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n");
    for (CommandLine sub : command.getSubcommands().values()) {
      if (!sub.getCommandSpec().usageMessage().hidden() && !sub.getCommandName().equals("help")) {
        section(doc, title.split(":")[0] + " " + sub.getCommandName(), sub);
      }
    }
  }
}
