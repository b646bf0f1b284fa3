package dev.bolo.server.engine;

import java.util.regex.Pattern;

/**
 * Reduces a provider's error message to what a phone may see: short, one line, and without the
 * URLs, host names, addresses or key-like strings a provider or proxy may echo back. The full text
 * belongs in the operator's log, never in a response. Stateless.
 */
public final class ProviderMessage {

  /** Long enough for "Invalid file format. Supported formats: …", short enough for a phone. */
  public static final int MAX_CHARS = 200;

  private static final Pattern URL = Pattern.compile("(?i)\\b[a-z][a-z0-9+.-]*://\\S*");
  private static final Pattern IPV4 = Pattern.compile("\\b\\d{1,3}(\\.\\d{1,3}){3}(:\\d+)?\\b");
  private static final Pattern IPV6 =
      Pattern.compile("(?i)\\[?\\b[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}\\]?");

  /** Dotted names ending in a letter label: api.openai.com, proxy.internal. */
  private static final Pattern HOST =
      Pattern.compile("(?i)\\b([a-z0-9-]+\\.)+[a-z][a-z0-9-]*[a-z0-9](:\\d+)?\\b");

  /** API keys and bearer tokens are long unbroken runs of letters, digits, '-' and '_'. */
  private static final Pattern KEY_LIKE = Pattern.compile("[A-Za-z0-9_\\-]{24,}");

  private static final Pattern CONTROL = Pattern.compile("[\\p{Cntrl}\\s]+");

  private ProviderMessage() {}

  /** The message a phone may see; {@code fallback} when nothing readable is left. */
  public static String sanitised(String message, String fallback) {
    // Cut well past what is shown before matching: a provider's message may be megabytes, and a key
    // cut in two here lies beyond the part a phone sees.
    String head = message.length() <= 5 * MAX_CHARS ? message : message.substring(0, 5 * MAX_CHARS);
    String text = CONTROL.matcher(head).replaceAll(" ");
    text = URL.matcher(text).replaceAll("[url]");
    text = KEY_LIKE.matcher(text).replaceAll("[redacted]");
    text = IPV4.matcher(text).replaceAll("[address]");
    text = IPV6.matcher(text).replaceAll(m -> isIpv6(m.group()) ? "[address]" : m.group());
    text = HOST.matcher(text).replaceAll("[host]");
    // One line of printable text, cut whole characters: the ASCII controls are gone already, the
    // rest (C1 controls, invisible format characters, lone surrogates) go here.
    text = ClientText.clean(text, MAX_CHARS + 1);
    return text.isEmpty() ? fallback : text;
  }

  /**
   * Times like 12:30:00 look like IPv6 groups; an address has at least two colons and a hex letter
   * or "::".
   */
  private static boolean isIpv6(String candidate) {
    return candidate.contains("::") || candidate.chars().filter(c -> c == ':').count() >= 4;
  }
}
