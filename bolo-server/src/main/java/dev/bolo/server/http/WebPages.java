package dev.bolo.server.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The browser pages and their files, served from the jar: no build step, no CDN. A page is an HTML
 * file of the resource folder {@value #FOLDER} at a path of its own ({@link #page}); its scripts,
 * style sheets and icons are files of the same folder under {@value #ASSETS}, where any file with a
 * known type is served (the style sheet every page shares, {@code bolo.css}, too), and the icon
 * also at {@code /favicon.ico}. A subfolder's files are served under its name: the build puts
 * Bolo's JavaScript client ({@code bolo-client-js/src}) in {@code bolo-client/}, which the
 * dictation page imports from {@code /assets/bolo-client/}. Every file of the folder is read once,
 * at start (the folder is a few hundred kilobytes); a name that is not one of them is 404 and costs
 * nothing, so no request can make the gateway keep anything. Every answer also carries {@link
 * SecurityHeaders}. Thread safe (immutable).
 */
public final class WebPages {

  /** The classpath folder holding the pages and their files. */
  public static final String FOLDER = "/dev/bolo/server/web/";

  /** Where the files of the pages are served. */
  public static final String ASSETS = "/assets/";

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

  private static final String HTML = "text/html; charset=utf-8";

  /** The page at {@code /}, whose folder holds every page and file. */
  private static final String DICTATION_PAGE = "dictation.html";

  /** Every file of the folder by name: the pages and their assets. */
  private final Map<String, File> files;

  /** The files served under {@value #ASSETS}: those of a known type. */
  private final Map<String, File> assets;

  /** One file of the folder, with its type and the ETag that lets a browser revalidate it. */
  private record File(byte[] bytes, String type, String etag) {}

  private WebPages(Map<String, File> files) {
    this.files = Map.copyOf(files);
    Map<String, File> served = new HashMap<>(files);
    served.values().removeIf(file -> file.type().equals(HTML));
    this.assets = Map.copyOf(served);
  }

  /**
   * Registers the dictation page at {@code /} and the files of every page under {@value #ASSETS}.
   */
  static void register(RoutesConfig routes) {
    WebPages pages = loadFolderOf(onClassPath(DICTATION_PAGE));
    routes.before(SecurityHeaders::apply);
    routes.get("/", pages.page(DICTATION_PAGE));
    routes.get(ASSETS + "{file}", ctx -> pages.asset(ctx, ctx.pathParam("file")));
    routes.get(
        ASSETS + "{folder}/{file}",
        ctx -> pages.asset(ctx, ctx.pathParam("folder") + "/" + ctx.pathParam("file")));
    // Where browsers look for an icon by themselves, whatever the page names.
    routes.get("/favicon.ico", ctx -> pages.asset(ctx, "favicon.ico"));
  }

  /**
   * Reads every file of the folder holding {@code file}, a file of the class path: in a directory
   * (a build's classes) or in a jar. Found by a file, not by the folder's name, which other roots
   * of the class path may have too (the tests' classes of the same package).
   *
   * @throws UncheckedIOException when it cannot be read: a broken build, found at start
   */
  static WebPages loadFolderOf(URL file) {
    try {
      URLConnection connection = file.openConnection();
      if (connection instanceof JarURLConnection inJar) {
        // Read with java.util.jar, not a zip file system: the image's runtime is jlinked with the
        // modules the jars use, and jdk.zipfs is not one of them.
        try (JarFile jar = new JarFile(Path.of(inJar.getJarFileURL().toURI()).toFile())) {
          return new WebPages(read(jar, folderOf(inJar.getEntryName())));
        }
      }
      return new WebPages(read(parentOf(Path.of(file.toURI()))));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the pages beside " + file, e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("the class loader named the pages by a bad URL", e);
    }
  }

  private static String folderOf(String entry) {
    return entry.substring(0, entry.lastIndexOf('/') + 1);
  }

  private static Path parentOf(Path file) {
    Path folder = file.getParent();
    if (folder == null) {
      throw new IllegalStateException("the pages are not in a folder: " + file);
    }
    return folder;
  }

  private static URL onClassPath(String name) {
    URL file = WebPages.class.getResource(FOLDER + name);
    if (file == null) {
      throw new IllegalStateException("no page " + FOLDER + name + " in the jar");
    }
    return file;
  }

  /** The names of the files served under {@value #ASSETS}. */
  List<String> assetNames() {
    return assets.keySet().stream().sorted().toList();
  }

  /**
   * A handler answering the HTML file {@code name} of the folder; a missing file is a build error
   * and fails the start.
   */
  public Handler page(String name) {
    File file = files.get(name);
    if (file == null || !file.type().equals(HTML)) {
      throw new IllegalArgumentException("no page " + FOLDER + name + " in the jar");
    }
    return ctx -> send(ctx, file);
  }

  private void asset(Context ctx, String name) {
    File file = assets.get(name);
    if (file == null) {
      throw new NotFoundResponse();
    }
    send(ctx, file);
  }

  private static void send(Context ctx, File file) {
    // Revalidate every time: a new gateway version takes effect on the next load, and an
    // unchanged file costs a 304.
    ctx.header("Cache-Control", "no-cache");
    ctx.header("ETag", file.etag());
    if (file.etag().equals(ctx.header("If-None-Match"))) {
      ctx.status(304);
      return;
    }
    ctx.contentType(file.type()).result(file.bytes());
  }

  /**
   * The files in {@code folder} and its subfolders (not deeper) whose type is known (pages and
   * assets), by their path in it ({@code bolo-client/index.js}); none whose name begins with a dot.
   */
  private static Map<String, File> read(Path folder) throws IOException {
    Map<String, File> files = new HashMap<>();
    try (Stream<Path> listed = Files.walk(folder, 2)) {
      for (Path path : listed.filter(Files::isRegularFile).toList()) {
        String name = folder.relativize(path).toString().replace('\\', '/');
        if (served(name)) {
          put(files, name, Files.readAllBytes(path));
        }
      }
    }
    return files;
  }

  /** The same as {@link #read(Path)} for the entries in {@code folder} of {@code jar}. */
  private static Map<String, File> read(JarFile jar, String folder) throws IOException {
    Map<String, File> files = new HashMap<>();
    for (JarEntry entry : jar.stream().toList()) {
      String path = entry.getName();
      String name = path.substring(Math.min(folder.length(), path.length()));
      boolean nested = name.indexOf('/') != name.lastIndexOf('/');
      if (!entry.isDirectory() && path.startsWith(folder) && !nested && served(name)) {
        try (InputStream in = jar.getInputStream(entry)) {
          put(files, name, in.readAllBytes());
        }
      }
    }
    return files;
  }

  private static boolean served(String name) {
    return typeOf(name) != null && !name.startsWith(".") && !name.contains("/.");
  }

  private static void put(Map<String, File> files, String name, byte[] bytes) {
    files.put(name, new File(bytes, Objects.requireNonNull(typeOf(name)), etagOf(bytes)));
  }

  private static @Nullable String typeOf(String name) {
    String extension = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    return extension.equals("html") ? HTML : TYPES.get(extension);
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
