package dev.bolo.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The dashboard's four files, read from the jar once: no build step, nothing fetched from
 * elsewhere. They hold no data (the API does) and no secret, so they are served without the token.
 */
final class AdminPage {

  /**
   * The policy the page is written for: its own script and styles only, no inline script or style,
   * no eval, requests to this origin only, never framed.
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
          + " frame-ancestors 'none'";

  private final byte[] html;
  private final byte[] script;
  private final byte[] styles;
  private final byte[] jobsScript;

  private AdminPage(byte[] html, byte[] script, byte[] styles, byte[] jobsScript) {
    this.html = html;
    this.script = script;
    this.styles = styles;
    this.jobsScript = jobsScript;
  }

  /**
   * @throws UncheckedIOException when a file is missing from the jar: a broken build, found at
   *     start rather than by the first operator
   */
  static AdminPage load() {
    return new AdminPage(
        read("index.html"), read("admin.js"), read("admin.css"), read("admin-jobs.js"));
  }

  void html(Context ctx) {
    send(ctx, "text/html; charset=utf-8", html);
  }

  void script(Context ctx) {
    send(ctx, "text/javascript; charset=utf-8", script);
  }

  /** The jobs panel's module, which admin.js imports. */
  void jobsScript(Context ctx) {
    send(ctx, "text/javascript; charset=utf-8", jobsScript);
  }

  void styles(Context ctx) {
    send(ctx, "text/css; charset=utf-8", styles);
  }

  private static void send(Context ctx, String type, byte[] body) {
    ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Referrer-Policy", "no-referrer");
    ctx.header("X-Frame-Options", "DENY");
    // A gateway upgrade changes the files; they are small, so they are never served stale.
    ctx.header("Cache-Control", "no-cache");
    ctx.contentType(type).result(body);
  }

  private static byte[] read(String name) {
    try (InputStream in = AdminPage.class.getResourceAsStream("admin/" + name)) {
      if (in == null) {
        throw new UncheckedIOException(
            new IOException("the dashboard file admin/" + name + " is missing from the jar"));
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
