package dev.bolo.server.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The browser pages and their files, served from the jar: no build step, no CDN. A page is an HTML
 * file of the resource folder {@value #FOLDER} at a path of its own ({@link #page}); its scripts,
 * style sheets and icons are files of the same folder under {@value #ASSETS}, where any file with a
 * known type is served (the style sheet every page shares, {@code bolo.css}, too), and the icon
 * also at {@code /favicon.ico}. Files are read once and kept (the folder is a few tens of
 * kilobytes). Every answer also carries {@link SecurityHeaders}. Thread safe.
 */
public final class WebPages {

  /** The classpath folder holding the pages and their files. */
  public static final String FOLDER = "/dev/bolo/server/web/";

  /** Where the files of the pages are served. */
  public static final String ASSETS = "/assets/";

  /**
   * A file name: no folder, no dot first, so no path can leave the folder; the extension picks the
   * type.
   */
  private static final Pattern FILE_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*\\.[a-z0-9]+");

  /** The types served; anything else is not found. Modules are JavaScript (RFC 9239). */
  private static final Map<String, String> TYPES =
      Map.of(
          "mjs", "text/javascript; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png",
          "ico", "image/x-icon",
          "json", "application/json");

  private final Map<String, Optional<File>> files = new ConcurrentHashMap<>();

  /** One file of the folder, with the ETag that lets a browser revalidate it cheaply. */
  private record File(byte[] bytes, String etag) {}

  /**
   * Registers the dictation page at {@code /} and the files of every page under {@value #ASSETS}.
   */
  static void register(RoutesConfig routes) {
    WebPages pages = new WebPages();
    routes.before(SecurityHeaders::apply);
    routes.get("/", page("dictation.html"));
    routes.get(ASSETS + "{file}", ctx -> pages.asset(ctx, ctx.pathParam("file")));
    // Where browsers look for an icon by themselves, whatever the page names.
    routes.get("/favicon.ico", ctx -> pages.asset(ctx, "favicon.ico"));
  }

  /**
   * A handler answering the HTML file {@code name} of the folder, read now; a missing file is a
   * build error and fails the start.
   */
  public static Handler page(String name) {
    File file =
        read(name)
            .orElseThrow(
                () -> new IllegalArgumentException("no page " + FOLDER + name + " in the jar"));
    return ctx -> send(ctx, file, "text/html; charset=utf-8");
  }

  private void asset(Context ctx, String name) {
    String type = typeOf(name);
    Optional<File> file =
        type == null ? Optional.empty() : files.computeIfAbsent(name, WebPages::read);
    if (type == null || file.isEmpty()) {
      throw new NotFoundResponse();
    }
    send(ctx, file.get(), type);
  }

  private static void send(Context ctx, File file, String type) {
    // Revalidate every time: a new gateway version takes effect on the next load, and an
    // unchanged file costs a 304.
    ctx.header("Cache-Control", "no-cache");
    ctx.header("ETag", file.etag());
    if (file.etag().equals(ctx.header("If-None-Match"))) {
      ctx.status(304);
      return;
    }
    ctx.contentType(type).result(file.bytes());
  }

  private static @Nullable String typeOf(String name) {
    if (!FILE_NAME.matcher(name).matches()) {
      return null;
    }
    String extension = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    return TYPES.get(extension);
  }

  private static Optional<File> read(String name) {
    try (InputStream in = WebPages.class.getResourceAsStream(FOLDER + name)) {
      if (in == null) {
        return Optional.empty();
      }
      byte[] bytes = in.readAllBytes();
      return Optional.of(new File(bytes, etagOf(bytes)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + FOLDER + name + " from the jar", e);
    }
  }

  private static String etagOf(byte[] bytes) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
