package io.evenkeel.router.policy;

import picocli.CommandLine.Option;

/**
 * The routing policy flag of the processes that route rows (the ingest job's writes, the query service's reads),
 * declared once. A picocli mixin; {@link #spec} is what the process routes by, and {@link PolicySpec#toArgs} writes
 * it back as the flag.
 */
public final class PolicyOptions {
  public static final String POLICY = "--policy";

  // How a process follows the committed rule list is in its own description.
  @Option(names = POLICY, defaultValue = "dynamic", description = "Routing: hashing, double:L (every tenant over L"
      + " shards), dynamic (each tenant's L from the committed rule list) or logstore (LogStore's max-flow tables,"
      + " from the committed rule list) (default: ${DEFAULT-VALUE}).")
  private String policy;

  /** The policy given; throws naming the forms when the text is none of them. */
  public PolicySpec spec() {
    return PolicySpec.parse(policy);
  }
}
