package io.evenkeel.shard.translog;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * An operator's tool for a shard whose translog will not open because a record in the middle is corrupt: {@code
 * --truncate-corrupt} cuts the newest generation at its first bad record, losing every record after it, and keeps a
 * copy of the whole file. Run it only on a stopped shard server, and only when no replica holds the shard's writes.
 */
@Command(name = "evenkeel translog", mixinStandardHelpOptions = true,
    description = "Repairs a shard's translog that will not open (run with its shard server stopped).")
public final class TranslogTool implements Callable<Integer> {
  @Parameters(paramLabel = "DIRECTORY", description = "The shard's translog directory (<data dir>/shard-<n>/translog).")
  Path directory;

  @Option(names = "--truncate-corrupt", required = true, description = "Cut the newest generation at its first bad "
      + "record (every record after it is lost), after copying the file to translog-<generation>.tlog.corrupt-<ms>.")
  boolean truncate;

  public static void main(String[] args) {
    System.exit(new CommandLine(new TranslogTool()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (!Files.isDirectory(directory)) {
      System.err.println("evenkeel translog: " + directory + " is not a directory");
      return CommandLine.ExitCode.USAGE;
    }
    System.out.println(Translog.truncateAtCorruption(directory));
    return CommandLine.ExitCode.OK;
  }
}
