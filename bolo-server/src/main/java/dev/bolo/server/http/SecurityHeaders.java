package dev.bolo.server.http;

import io.javalin.http.Context;
import java.util.Map;

/**
 * The headers every answer of the gateway carries, so that a page it serves (the dictation page,
 * the operator dashboard, any later one) runs only the gateway's own files and cannot be framed,
 * and no answer (JSON included) is sniffed into something else. Registered once, before every
 * route, so a new page cannot forget them. Thread safe (immutable).
 *
 * <p>The policy is strict on purpose: pages load scripts and styles as files from the gateway
 * itself, never inline, never from a CDN; {@code connect-src 'self'} keeps a device token from
 * being sent anywhere but the gateway that issued the page.
 */
public final class SecurityHeaders {

  /**
   * Content-Security-Policy (CSP Level 3). Each directive, and why:
   *
   * <ul>
   *   <li>{@code default-src 'self'}: anything not named below comes from the gateway or not at
   *       all;
   *   <li>{@code script-src 'self'}: script files only; no inline script, no {@code eval} (neither
   *       {@code 'unsafe-inline'} nor {@code 'unsafe-eval'}), so an injected string cannot run;
   *   <li>{@code style-src 'self'}: style sheets only, no {@code style} attributes;
   *   <li>{@code img-src 'self' data:}, {@code media-src 'self' blob:}: the page's own icons, and
   *       playback of a note recorded in the page (a blob URL);
   *   <li>{@code connect-src 'self'}: fetch and XHR reach the gateway only;
   *   <li>{@code worker-src 'self'}: worklets and workers are the gateway's files;
   *   <li>{@code object-src 'none'}, {@code base-uri 'none'}, {@code form-action 'none'}: no
   *       plug-ins, no rebased relative URLs, no form posted elsewhere (the pages post by script);
   *   <li>{@code frame-ancestors 'none'}: no site may frame a page (clickjacking).
   * </ul>
   */
  static final String CONTENT_SECURITY_POLICY =
      String.join(
          "; ",
          "default-src 'self'",
          "script-src 'self'",
          "style-src 'self'",
          "img-src 'self' data:",
          "media-src 'self' blob:",
          "connect-src 'self'",
          "worker-src 'self'",
          "object-src 'none'",
          "base-uri 'none'",
          "form-action 'none'",
          "frame-ancestors 'none'");

  /** Every header with its value; the order does not matter. */
  public static final Map<String, String> HEADERS =
      Map.of(
          "Content-Security-Policy",
          CONTENT_SECURITY_POLICY,
          // Browsers must not guess a type: a JSON error must never run as a script.
          "X-Content-Type-Options",
          "nosniff",
          // A page's URL is nobody else's business.
          "Referrer-Policy",
          "no-referrer",
          // frame-ancestors for browsers that predate it.
          "X-Frame-Options",
          "DENY",
          // The dictation page needs the microphone; nothing here needs the camera or location.
          "Permissions-Policy",
          "microphone=(self), camera=(), geolocation=()",
          // A page opened from elsewhere shares no window with its opener.
          "Cross-Origin-Opener-Policy",
          "same-origin");

  private SecurityHeaders() {}

  /** Sets every header on the answer; a Javalin before-handler for all paths. */
  public static void apply(Context ctx) {
    HEADERS.forEach(ctx::header);
  }
}
