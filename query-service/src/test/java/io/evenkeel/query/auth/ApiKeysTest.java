package io.evenkeel.query.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiKeysTest {
  @TempDir Path dir;

  private static void write(Path file, String... lines) throws IOException {
    // Written aside and moved in, as an operator's editor or a deployment would: a reader never sees half a file.
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.write(next, List.of(lines));
    Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void aKeyIsItsIdAndSecretCheckedAgainstTheBcryptHash() throws IOException {
    String[] admin = ApiKeys.newKey("ops", "admin");
    String[] shop = ApiKeys.newKey("shop7", "tenant 7,9");
    Path file = dir.resolve("keys");
    write(file, "# who may read what", admin[1], "", shop[1]);
    ApiKeys keys = ApiKeys.open(file);

    assertThat(keys.size()).isEqualTo(2);
    assertThat(keys.authenticate(admin[0]).isAdmin()).isTrue();
    Access tenant = keys.authenticate(shop[0]);
    assertThat(tenant.isAdmin()).isFalse();
    assertThat(tenant.tenants()).containsExactly(7L, 9L);
    assertThat(keys.authenticate(shop[0])).as("remembered after the first check").isEqualTo(tenant);

    String otherSecret = "shop7." + admin[0].substring("ops.".length());
    for (String bad : List.of(otherSecret, "shop7", "nobody.secret", shop[0] + "x", "")) {
      assertThatThrownBy(() -> keys.authenticate(bad)).as(bad).isInstanceOf(ApiKeys.Unauthorized.class);
    }
    assertThatThrownBy(() -> keys.authenticate(null)).isInstanceOf(ApiKeys.Unauthorized.class)
        .hasMessageContaining("Authorization: Bearer");
  }

  /**
   * Wrong secrets for a known id cost a bcrypt check each: after 10 in a row that id gets 429s without a check, as
   * does the address they came from for any id, until the bucket drains (one a 6 s); the right key is then accepted.
   */
  @Test
  void guessingIsBoundedPerKeyIdAndPerAddress() throws IOException {
    String[] admin = ApiKeys.newKey("ops", "admin");
    String[] shop = ApiKeys.newKey("shop7", "tenant 7");
    String[] more = ApiKeys.newKey("team", "tenant 8");
    Path file = dir.resolve("keys");
    write(file, admin[1], shop[1], more[1]);
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    ApiKeys keys = ApiKeys.open(file, now::get);
    for (int i = 0; i < ApiKeys.FAILURES_BURST; i++) {
      String guess = "ops.guess" + i;
      assertThatThrownBy(() -> keys.authenticate(guess, "10.0.0." + guess.length()))
          .isInstanceOf(ApiKeys.Unauthorized.class);
    }
    assertThatThrownBy(() -> keys.authenticate("ops.another", "10.0.0.99"))
        .isInstanceOfSatisfying(ApiKeys.TooManyFailures.class, e -> assertThat(e.retryAfterSeconds()).isEqualTo(6))
        .hasMessage("too many wrong secrets for key id ops; retry in 6 s");
    assertThatThrownBy(() -> keys.authenticate(admin[0], "10.0.0.99")).as("even the right key, meanwhile")
        .isInstanceOf(ApiKeys.TooManyFailures.class);
    assertThat(keys.authenticate(shop[0], "10.0.0.99").tenants()).as("another id").containsExactly(7L);
    now.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toNanos(ApiKeys.FAILURE_REFILL_SECONDS));
    assertThat(keys.authenticate(admin[0], "10.0.0.99").isAdmin()).isTrue();

    // From one address, guesses at many ids.
    now.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toNanos(2));
    for (int i = 0; i < ApiKeys.FAILURES_BURST; i++) {
      String guess = (i % 2 == 0 ? "shop7" : "team") + ".guess" + i;
      assertThatThrownBy(() -> keys.authenticate(guess, "192.0.2.1")).isInstanceOf(ApiKeys.Unauthorized.class);
    }
    assertThatThrownBy(() -> keys.authenticate(more[0], "192.0.2.1")).isInstanceOf(ApiKeys.TooManyFailures.class)
        .hasMessageContaining("address 192.0.2.1");
    assertThat(keys.authenticate(more[0], "192.0.2.2").tenants()).containsExactly(8L);
  }

  /** 40 wrong secrets at once for one id: at most 10 are checked (the bound counts before the check). */
  @Test
  void concurrentGuessesCannotPassTheBoundTogether() throws Exception {
    String[] admin = ApiKeys.newKey("ops", "admin");
    Path file = dir.resolve("keys");
    write(file, admin[1]);
    ApiKeys keys = ApiKeys.open(file, () -> 0L);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(40);
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    List<java.util.concurrent.Future<String>> outcomes = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String guess = "ops.guess" + i;
      String address = "198.51.100." + i;
      outcomes.add(pool.submit(() -> {
        start.await();
        try {
          keys.authenticate(guess, address);
          return "accepted";
        } catch (ApiKeys.TooManyFailures e) {
          return "429";
        } catch (ApiKeys.Unauthorized e) {
          return "checked";
        }
      }));
    }
    start.countDown();
    java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
    for (java.util.concurrent.Future<String> outcome : outcomes) {
      counts.merge(outcome.get(), 1, Integer::sum);
    }
    pool.shutdown();
    assertThat(counts).isEqualTo(java.util.Map.of("checked", ApiKeys.FAILURES_BURST, "429",
        40 - ApiKeys.FAILURES_BURST));
  }

  @Test
  void aChangedFileRotatesKeysWithoutARestartAndABrokenOneKeepsTheKeysInForce() throws Exception {
    String[] old = ApiKeys.newKey("shop7", "tenant 7");
    Path file = dir.resolve("keys");
    write(file, old[1]);
    ApiKeys keys = ApiKeys.open(file);
    assertThat(keys.authenticate(old[0]).tenants()).containsExactly(7L);

    String[] rotated = ApiKeys.newKey("shop7", "tenant 7");
    write(file, rotated[1]);
    Thread.sleep(1_100); // the file is checked at most once a second
    assertThatThrownBy(() -> keys.authenticate(old[0])).isInstanceOf(ApiKeys.Unauthorized.class);
    assertThat(keys.authenticate(rotated[0]).tenants()).containsExactly(7L);

    write(file, rotated[1], "shop8 not-a-hash tenant 8");
    Thread.sleep(1_100);
    assertThat(keys.authenticate(rotated[0]).tenants()).as("the keys read before stay").containsExactly(7L);
  }

  @Test
  void aKeyFileThatDoesNotParseIsRefusedNamingItsLine() throws IOException {
    String hash = ApiKeys.newKey("a", "admin")[1].split(" ")[1];
    Path file = dir.resolve("keys");
    for (List<String> lines : List.of(
        List.of("ops " + hash + " admin", "shop 'secret' tenant 7"),
        List.of("ops " + hash + " admin", "shop " + hash + " tenant"),
        List.of("ops " + hash + " admin", "shop " + hash + " tenant seven"),
        List.of("ops " + hash + " admin", "shop " + hash + " reader"),
        List.of("ops " + hash + " admin", "ops " + hash + " admin"))) {
      write(file, lines.toArray(String[]::new));
      assertThatThrownBy(() -> ApiKeys.open(file)).as(lines.get(1)).isInstanceOf(IOException.class)
          .hasMessageContaining("line 2");
    }
  }
}
