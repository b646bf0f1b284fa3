package dev.bolo.server.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TransferBuffersTest {

  @Test
  void anArrayGivenBackIsTakenAgainFromTheSamePoolAndNeverFromAnotherGatewaysPool() {
    TransferBuffers one = new TransferBuffers();
    TransferBuffers other = new TransferBuffers();
    byte[] used = one.take();
    one.give(used);

    assertThat(other.take()).isNotSameAs(used);
    assertThat(one.take()).isSameAs(used);
  }

  @Test
  void anArrayOfAnotherLengthIsRefused() {
    TransferBuffers buffers = new TransferBuffers();

    assertThatThrownBy(() -> buffers.give(new byte[10]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a transfer buffer: 10 bytes");
  }
}
