package dev.bolo.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.webhook.WebhookUrlPolicy.RefusedWebhookUrl;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The policy a {@code webhook_url} must pass when a job is made. Names resolve through a table
 * here: nothing is looked up and nothing is connected to.
 */
class ResolvingUrlPolicyTest {

  static HostResolver table(Map<String, List<String>> names) {
    return host -> {
      List<String> literals = names.get(host);
      if (literals == null) {
        throw new UnknownHostException(host);
      }
      List<InetAddress> addresses = new java.util.ArrayList<>();
      for (String literal : literals) {
        addresses.add(InetAddress.getByName(literal));
      }
      return addresses;
    };
  }

  private final WebhookUrlPolicy policy =
      WebhookCalls.policy(
          List.of("receiver.internal:8080", "[::1]:9000"),
          table(
              Map.of(
                  "hooks.example.com",
                      List.of("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
                  "internal.example.com", List.of("127.0.0.2"),
                  "split.example.com", List.of("93.184.215.14", "10.1.2.3"),
                  "metadata.example.com", List.of("169.254.169.254"),
                  "receiver.internal", List.of("10.0.0.5"))));

  @Test
  void anHttpsUrlWhoseNameResolvesOnlyToPublicAddressesPasses() {
    assertThatCode(() -> policy.check("https://hooks.example.com/bolo?x=1"))
        .doesNotThrowAnyException();
  }

  @Test
  void plainHttpIsRefusedUnlessTheOperatorListsTheHostAndPort() {
    assertThat(refusal("http://hooks.example.com/bolo")).contains("must use https");
    assertThatCode(() -> policy.check("http://receiver.internal:8080/hook"))
        .doesNotThrowAnyException();
    assertThatCode(() -> policy.check("http://[::1]:9000/hook")).doesNotThrowAnyException();
    assertThat(refusal("http://receiver.internal:8081/hook")).contains("must use https");
  }

  @Test
  void anAllowedHostMayResolveToAPrivateAddressOverHttps() {
    assertThatCode(() -> policy.check("https://receiver.internal:8080/hook"))
        .doesNotThrowAnyException();
  }

  @Test
  void aNameThatResolvesToLoopbackIsRefusedNamingTheAddressAndTheReason() {
    assertThat(refusal("https://internal.example.com/hook"))
        .isEqualTo(
            "webhook_url's host internal.example.com resolves to 127.0.0.2, a loopback address,"
                + " this machine itself: only public addresses are called (an operator may allow a"
                + " receiver with BOLO_WEBHOOK_HTTP_HOSTS)");
  }

  @Test
  void oneRefusedAddressAmongSeveralRefusesTheName() {
    assertThat(refusal("https://split.example.com/")).contains("10.1.2.3").contains("RFC 1918");
  }

  @Test
  void literalAddressesAreJudgedWithoutALookup() {
    assertThat(refusal("https://169.254.169.254/latest/meta-data/")).contains("metadata");
    assertThat(refusal("https://metadata.example.com/")).contains("metadata");
    assertThat(refusal("https://[::1]/")).contains("loopback");
    assertThat(refusal("https://[::ffff:127.0.0.1]/")).contains("loopback");
    assertThat(refusal("https://[::ffff:a9fe:a9fe]/")).contains("metadata");
    assertThat(refusal("https://[fd00:ec2::254]/")).contains("unique local");
    assertThat(refusal("https://[fe80::1]/")).contains("link-local");
    assertThat(refusal("https://100.64.0.1/")).contains("carrier-grade NAT");
    assertThat(refusal("https://0.0.0.0/")).contains("unspecified");
    assertThatCode(() -> policy.check("https://93.184.215.14/")).doesNotThrowAnyException();
  }

  @Test
  void numericHostsInShortOrWholeNumberFormsAreRefused() {
    assertThat(refusal("https://127.1/")).contains("four numbers");
    assertThat(refusal("https://2130706433/")).contains("four numbers");
  }

  @Test
  void malformedUrlsCredentialsUnknownNamesAndHugeUrlsAreRefused() {
    assertThat(refusal("ftp://hooks.example.com/")).contains("not an absolute https URL");
    assertThat(refusal("hooks.example.com/path")).contains("not an absolute https URL");
    assertThat(refusal("https://user:secret@hooks.example.com/")).contains("user name or password");
    assertThat(refusal("https://nowhere.example.com/")).contains("does not resolve");
    assertThat(refusal("https://hooks.example.com/" + "a".repeat(3000))).contains("2048");
  }

  @Test
  void anOperatorsEntryThatIsNotHostAndPortIsRefusedNamingIt() {
    assertThatThrownBy(() -> WebhookCalls.policy(List.of("receiver.internal"), table(Map.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("receiver.internal");
    assertThatThrownBy(() -> WebhookCalls.policy(List.of("a:1/path"), table(Map.of())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private String refusal(String url) {
    try {
      policy.check(url);
    } catch (RefusedWebhookUrl e) {
      return String.valueOf(e.getMessage());
    }
    throw new AssertionError("not refused: " + url);
  }
}
