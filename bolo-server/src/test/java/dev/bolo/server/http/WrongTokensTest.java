package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.testkit.FakeTicker;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The budget of wrong tokens per client address, on a fake ticker. */
class WrongTokensTest {

  private final FakeTicker ticker = FakeTicker.atOneSecond();
  private final WrongTokens wrongTokens = WrongTokens.perMinute(10, ticker);

  @Test
  void anAddressThatSpentItsWrongTokensWaitsForItsNextMinuteAndNoOtherAddressDoes()
      throws Exception {
    InetAddress guesser = InetAddress.getByName("192.0.2.7");
    InetAddress neighbour = InetAddress.getByName("192.0.2.8");
    for (int i = 0; i < 9; i++) {
      wrongTokens.count(guesser);
    }
    assertThat(wrongTokens.waitBefore(guesser, "guess")).as("one left").isZero();

    wrongTokens.count(guesser);
    ticker.advance(Duration.ofSeconds(15));

    assertThat(wrongTokens.waitBefore(guesser, "guess")).isEqualTo(Duration.ofSeconds(45));
    assertThat(wrongTokens.waitBefore(neighbour, "guess")).isZero();
    ticker.advance(Duration.ofSeconds(45));
    assertThat(wrongTokens.waitBefore(guesser, "guess")).isZero();
  }

  @Test
  void aTokenThatWasRightFromAnAddressPassesThereOnlyEvenOnceItsWrongTokensAreSpent()
      throws Exception {
    InetAddress shared = InetAddress.getByName("192.0.2.7");
    InetAddress other = InetAddress.getByName("192.0.2.8");
    wrongTokens.right(shared, "device-token");
    for (int i = 0; i < 10; i++) {
      wrongTokens.count(shared);
      wrongTokens.count(other);
    }

    assertThat(wrongTokens.waitBefore(shared, "device-token")).isZero();
    assertThat(wrongTokens.waitBefore(shared, "device-token-2")).isPositive();
    assertThat(wrongTokens.waitBefore(other, "device-token")).isPositive();
  }

  @Test
  void anIpv6ClientCountsByItsSlash64() throws Exception {
    for (int i = 0; i < 10; i++) {
      wrongTokens.count(InetAddress.getByName("2001:db8:0:7::" + Integer.toHexString(i + 1)));
    }

    assertThat(wrongTokens.waitBefore(InetAddress.getByName("2001:db8:0:7::ffff"), "guess"))
        .isPositive();
    assertThat(wrongTokens.waitBefore(InetAddress.getByName("2001:db8:0:8::1"), "guess")).isZero();
  }

  @Test
  void memoryHoldsAtMostItsBoundWhateverTheNumberOfAddresses() throws Exception {
    for (int i = 0; i < 100_000; i++) {
      wrongTokens.count(
          InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i}));
    }

    assertThat(wrongTokens.addressesKept()).isLessThanOrEqualTo(WrongTokens.MAX_ADDRESSES);
  }
}
