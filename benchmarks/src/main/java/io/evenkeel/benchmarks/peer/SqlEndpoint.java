package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;

/** Where a benchmark asks Evenkeel SQL over HTTP: a local stack, or the processes of a multi-host rehearsal. */
public interface SqlEndpoint {
  /** The rows a query returns (the service's JSON {@code rows}); throws with the answer when it is not 200. */
  JsonNode rows(String sql, List<Object> params) throws IOException, InterruptedException;
}
