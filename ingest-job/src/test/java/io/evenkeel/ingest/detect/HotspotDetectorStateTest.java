package io.evenkeel.ingest.detect;

import io.evenkeel.router.planner.TenantTrend;
import org.apache.flink.types.PojoTestUtils;
import org.junit.jupiter.api.Test;

/** The detector's keyed state stays a Flink POJO: a field or constructor that broke it would fall back to Kryo. */
class HotspotDetectorStateTest {
  @Test
  void aTenantTrendIsSerializedAsAPojoWithoutKryo() {
    PojoTestUtils.assertSerializedAsPojoWithoutKryo(TenantTrend.class);
  }
}
