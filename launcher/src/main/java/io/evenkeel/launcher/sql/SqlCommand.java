package io.evenkeel.launcher.sql;

import io.evenkeel.launcher.cli.ClientCredentials;
import io.evenkeel.launcher.cli.UserError;
import io.evenkeel.launcher.local.StackInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code evenkeel sql}: one query, or an interactive prompt, against the query service's {@code POST /sql}. */
@Command(name = "sql", mixinStandardHelpOptions = true,
    description = {"Runs QUERY and prints an aligned table with the row count, the time and the shards visited; "
        + "without QUERY, opens a prompt (statements end with ';', history kept in <data-dir>/sql-history).",
        "The service is the local stack's (through <data-dir>/stack.json) or --url."})
public final class SqlCommand implements Callable<Integer> {
  @Parameters(arity = "0..1", paramLabel = "QUERY", description = "A SELECT statement.")
  String query;

  @Mixin
  private ClientCredentials credentials = new ClientCredentials();

  @Option(names = "--json", description = "Print the service's JSON instead of a table.")
  boolean json;

  @Option(names = "--url", description = "The query service, e.g. http://127.0.0.1:7704 (default: the local stack's).")
  String url;

  @Option(names = "--data-dir", defaultValue = "evenkeel-data", description = "The local stack's data directory (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Override
  public Integer call() throws Exception {
    Path stackCa = null;
    if (url == null) {
      StackInfo stack = StackInfo.read(dataDir);
      url = stack.queryService();
      stackCa = stack.caCertificate() == null ? null : Path.of(stack.caCertificate());
      if (url == null) {
        throw new UserError("the local stack on " + dataDir + " lists no query service (started by an older launcher?);"
            + " pass --url to use one running elsewhere");
      }
    }
    SqlClient client = new SqlClient(url, credentials.key(), credentials.caCertificate(stackCa));
    if (query != null) {
      return run(client, query, System.out) ? 0 : 1;
    }
    interactive(client);
    return 0;
  }

  /** Runs one statement; prints the table (or JSON) or the error. Returns whether it succeeded. */
  private boolean run(SqlClient client, String sql, PrintStream out) throws InterruptedException {
    String statement = sql.strip();
    if (statement.endsWith(";")) {
      statement = statement.substring(0, statement.length() - 1);
    }
    try {
      SqlResult result = client.query(statement);
      out.print(json ? result.json() + System.lineSeparator() : ResultTable.render(result));
      return true;
    } catch (SqlClient.SqlError e) {
      out.println(e.getMessage());
    } catch (IOException e) {
      out.println("query failed: " + e.getMessage());
    }
    out.flush();
    return false;
  }

  private void interactive(SqlClient client) throws IOException, InterruptedException {
    try (Terminal terminal = TerminalBuilder.builder().build()) {
      LineReader reader = LineReaderBuilder.builder().terminal(terminal)
          .variable(LineReader.HISTORY_FILE, dataDir.resolve("sql-history"))
          .build();
      PrintStream out = new PrintStream(terminal.output(), true, terminal.encoding());
      out.println("Connected to " + url + ". End statements with ';'. Ctrl-D or 'quit' leaves.");
      StringBuilder statement = new StringBuilder();
      while (true) {
        String line;
        try {
          line = reader.readLine(statement.length() == 0 ? "evenkeel> " : "       -> ");
        } catch (UserInterruptException e) {
          statement.setLength(0);
          continue;
        } catch (EndOfFileException e) {
          return;
        }
        if (statement.length() == 0 && (line.strip().equalsIgnoreCase("quit") || line.strip().equalsIgnoreCase("exit"))) {
          return;
        }
        statement.append(statement.length() == 0 ? "" : "\n").append(line);
        if (line.strip().endsWith(";")) {
          run(client, statement.toString(), out);
          statement.setLength(0);
        }
      }
    }
  }
}
