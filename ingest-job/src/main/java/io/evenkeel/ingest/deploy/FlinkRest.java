package io.evenkeel.ingest.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A Flink cluster's REST API, as far as running the ingest job there needs it: upload a jar and run it (from a
 * savepoint or not), take a savepoint, stop with one, read a job's state, cancel. The endpoints are those of Flink's
 * web submission and job management ({@code /jars/upload}, {@code /jars/:id/run}, {@code /jobs/:id/savepoints},
 * {@code /jobs/:id/stop}); a savepoint is an asynchronous operation, polled until it completes or fails.
 */
public final class FlinkRest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Longer than the job's main may take inside the JobManager before it submits (it waits up to a minute for Kafka to
   * list its topics), and than a jar of tens of megabytes takes to upload.
   */
  private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(3);

  private final HttpClient http;
  private final URI base;

  /** The cluster whose REST endpoint (the JobManager's web address, {@code http://host:8081}) is {@code base}. */
  public FlinkRest(URI base) {
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    String url = base.toString();
    this.base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
  }

  /** Uploads {@code jar}; returns the id the cluster gave it. */
  public String uploadJar(Path jar) throws IOException, InterruptedException {
    String boundary = "evenkeel-" + UUID.randomUUID();
    String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
        + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
    // The jar streams from its file: it is tens of megabytes.
    HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.concat(
        HttpRequest.BodyPublishers.ofString(head), HttpRequest.BodyPublishers.ofFile(jar),
        HttpRequest.BodyPublishers.ofString("\r\n--" + boundary + "--\r\n"));
    JsonNode answer = send(HttpRequest.newBuilder(uri("/jars/upload"))
        .header("Content-Type", "multipart/form-data; boundary=" + boundary).POST(body), "upload " + jar);
    String stored = answer.path("filename").asText("");
    if (stored.isEmpty()) {
      throw new IOException("the cluster took " + jar + " but named no file: " + answer);
    }
    return Path.of(stored).getFileName().toString();
  }

  /**
   * Runs {@code entryClass} of an uploaded jar with {@code args}; from {@code savepoint} when not null (refusing
   * state the job no longer has unless {@code allowNonRestoredState}). Returns the job's id.
   */
  public String run(String jarId, String entryClass, List<String> args, String savepoint,
      boolean allowNonRestoredState) throws IOException, InterruptedException {
    ObjectNode request = JSON.createObjectNode().put("entryClass", entryClass);
    args.forEach(request.putArray("programArgsList")::add);
    if (savepoint != null) {
      request.put("savepointPath", savepoint).put("allowNonRestoredState", allowNonRestoredState);
    }
    JsonNode answer = send(post("/jars/" + jarId + "/run", request), "run " + entryClass);
    String job = answer.path("jobid").asText("");
    if (job.isEmpty()) {
      throw new IOException("the cluster ran " + entryClass + " but named no job: " + answer);
    }
    return job;
  }

  /** A job's state: CREATED, RUNNING, RESTARTING, FAILED, FINISHED, CANCELED, ... */
  public String state(String job) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(uri("/jobs/" + job)).GET(), "read job " + job).path("state").asText();
  }

  /** Takes a savepoint of a running job into {@code directory}, the job going on; returns its path. */
  public String savepoint(String job, String directory, Duration timeout) throws IOException, InterruptedException {
    ObjectNode request = JSON.createObjectNode().put("target-directory", directory).put("cancel-job", false);
    String trigger = send(post("/jobs/" + job + "/savepoints", request), "savepoint job " + job)
        .path("request-id").asText();
    return awaitSavepoint(job, trigger, timeout);
  }

  /**
   * Stops a job with a savepoint into {@code directory}: its sources stop, every change read so far reaches the
   * sinks, and the savepoint holds where each source stood. Returns the savepoint's path, from which {@link #run}
   * resumes without losing or repeating a change. Returns once the job has finished, not only its savepoint.
   */
  public String stopWithSavepoint(String job, String directory, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ObjectNode request = JSON.createObjectNode().put("targetDirectory", directory).put("drain", false);
    String trigger = send(post("/jobs/" + job + "/stop", request), "stop job " + job).path("request-id").asText();
    String savepoint = awaitSavepoint(job, trigger, timeout);
    for (String state = state(job); !state.equals("FINISHED"); state = state(job)) {
      if (state.equals("FAILED") || state.equals("CANCELED") || System.nanoTime() - deadline > 0) {
        throw new IOException("job " + job + " is " + state + " after its savepoint " + savepoint
            + " (the savepoint holds; the job did not finish" + (state.equals("RUNNING") ? " in time)" : ")"));
      }
      Thread.sleep(100);
    }
    return savepoint;
  }

  /** Cancels a job without a savepoint. */
  public void cancel(String job) throws IOException, InterruptedException {
    send(HttpRequest.newBuilder(uri("/jobs/" + job + "?mode=cancel"))
        .method("PATCH", HttpRequest.BodyPublishers.noBody()), "cancel job " + job);
  }

  private String awaitSavepoint(String job, String trigger, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JsonNode answer = send(HttpRequest.newBuilder(uri("/jobs/" + job + "/savepoints/" + trigger)).GET(),
          "read the savepoint of job " + job);
      if ("COMPLETED".equals(answer.path("status").path("id").asText())) {
        JsonNode operation = answer.path("operation");
        if (operation.hasNonNull("failure-cause")) {
          throw new IOException("the savepoint of job " + job + " failed: "
              + operation.path("failure-cause").path("stack-trace").asText(operation.toString()).lines().findFirst()
                  .orElse(""));
        }
        return operation.path("location").asText();
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("the savepoint of job " + job + " did not complete within " + timeout.toSeconds()
            + " s (trigger " + trigger + ")");
      }
      Thread.sleep(200);
    }
  }

  private HttpRequest.Builder post(String path, JsonNode body) throws IOException {
    return HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
  }

  private URI uri(String path) {
    return URI.create(base + path);
  }

  /** Sends a request; its JSON answer, or an exception naming what was asked and the cluster's errors. */
  private JsonNode send(HttpRequest.Builder request, String what) throws IOException, InterruptedException {
    HttpResponse<byte[]> response;
    try {
      response = http.send(request.timeout(REQUEST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new IOException("could not " + what + " at the Flink cluster " + base + ": "
          + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName() + " (is its JobManager up?)"), e);
    }
    JsonNode answer = response.body().length == 0 ? JSON.createObjectNode() : parse(response.body());
    if (response.statusCode() / 100 != 2) {
      throw new IOException("the Flink cluster at " + base + " refused to " + what + " (HTTP "
          + response.statusCode() + "): " + errors(answer));
    }
    return answer;
  }

  private static JsonNode parse(byte[] body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return JSON.createObjectNode().put("errors", new String(body, StandardCharsets.UTF_8));
    }
  }

  /** The first line of each of the cluster's errors (the rest is a server-side stack trace). */
  private static String errors(JsonNode answer) {
    if (!answer.has("errors")) {
      return answer.toString();
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode error : answer.path("errors")) {
      String line = error.asText().lines().filter(l -> !l.isBlank() && !l.startsWith("\tat ")).limit(3)
          .reduce((a, b) -> a + " " + b.strip()).orElse("");
      text.append(text.isEmpty() ? "" : "; ").append(line);
    }
    return text.isEmpty() ? answer.path("errors").toString() : text.toString();
  }
}
