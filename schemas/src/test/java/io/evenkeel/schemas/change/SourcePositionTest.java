package io.evenkeel.schemas.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.CdcPosition;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourcePositionTest {
  private static CdcPosition published(String file, long position, String gtids) {
    return new CdcPosition(file, position, gtids, List.of(), 0L);
  }

  @Test
  void aBinlogPositionIsReachedAtOrPastItAlongFilesThenPositions() {
    SourcePosition wanted = SourcePosition.binlog("binlog.000003:4217");
    assertThat(wanted.reachedBy(published("binlog.000003", 4217, null))).isTrue();
    assertThat(wanted.reachedBy(published("binlog.000003", 4216, null))).isFalse();
    assertThat(wanted.reachedBy(published("binlog.000002", 99_999_999, null))).isFalse();
    assertThat(wanted.reachedBy(published("binlog.000004", 4, null))).isTrue();
    // Numbers, not text: file 10 comes after file 9 whatever the zero padding.
    assertThat(SourcePosition.binlog("mysql-bin.9:100").reachedBy(published("mysql-bin.10", 4, null))).isTrue();
  }

  @Test
  void mariaDbGtidsAreReachedWhenEveryDomainsSequenceIs() {
    SourcePosition wanted = SourcePosition.gtids("0-1-57");
    assertThat(wanted.reachedBy(published("binlog.000001", 4, "0-1-57"))).isTrue();
    assertThat(wanted.reachedBy(published("binlog.000001", 4, "0-1-56"))).isFalse();
    // The sequence orders a domain whichever server wrote it (a failover changes the server id).
    assertThat(wanted.reachedBy(published("binlog.000001", 4, "0-2-60"))).isTrue();
    SourcePosition two = SourcePosition.gtids("0-1-57, 1-1-3");
    assertThat(two.reachedBy(published("binlog.000001", 4, "0-1-60,1-1-2"))).isFalse();
    assertThat(two.reachedBy(published("binlog.000001", 4, "0-1-60,1-1-3"))).isTrue();
    assertThat(wanted.reachedBy(published("binlog.000001", 4, null))).as("no transaction yet").isFalse();
  }

  @Test
  void malformedOrIncomparablePositionsAreRefusedNamingTheForm() {
    for (String bad : List.of("", "binlog", "binlog.000001", ":5", "binlog.x:5", "binlog.000001:-1", "000001:5")) {
      assertThatThrownBy(() -> SourcePosition.binlog(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("FILE:POSITION");
    }
    for (String bad : List.of("", "0-1", "0-1-x", "0--1-5", "3E11D0A5-0000-0000-0000-000000000000:1-5")) {
      assertThatThrownBy(() -> SourcePosition.gtids(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("DOMAIN-SERVER-SEQUENCE");
    }
    assertThatThrownBy(() -> SourcePosition.binlog("other.000001:5").reachedBy(published("binlog.000001", 9, null)))
        .hasMessageContaining("binlog files named binlog");
    assertThatThrownBy(() -> SourcePosition.gtids("0-1-5").reachedBy(published("binlog.000001", 9,
        "3e11d0a5-0000-0000-0000-000000000000:1-5"))).hasMessageContaining("no MariaDB GTIDs");
  }
}
