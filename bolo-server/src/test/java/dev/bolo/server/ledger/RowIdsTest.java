package dev.bolo.server.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RowIdsTest {

  @Test
  void anIdIsAVersion7UuidCarryingItsMillisecond() {
    long at = 1_764_590_400_123L;
    UUID id = UUID.fromString(RowIds.next(at));

    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
    assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(at);
  }

  @Test
  void idsOfLaterMillisecondsSortAfterEarlierOnesAsTextAndAreUniqueWithinOne() {
    List<String> ids = new ArrayList<>();
    for (long ms = 1_764_590_400_000L; ms < 1_764_590_400_050L; ms++) {
      for (int i = 0; i < 200; i++) {
        ids.add(RowIds.next(ms));
      }
    }
    for (int i = 200; i < ids.size(); i += 200) {
      assertThat(ids.get(i)).isGreaterThan(ids.get(i - 1));
    }
    assertThat(new HashSet<>(ids)).hasSize(ids.size());
  }
}
