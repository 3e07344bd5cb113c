package io.evenkeel.query.result;

/** One shard that gave no answer: where it was to be asked and why it failed ("DEADLINE_EXCEEDED after 2000 ms"). */
public record ShardFailure(int shard, String address, String reason) {
  @Override
  public String toString() {
    return "shard " + shard + " at " + address + ": " + reason;
  }
}
