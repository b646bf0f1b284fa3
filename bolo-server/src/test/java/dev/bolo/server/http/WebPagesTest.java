package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.OpenAiGateway;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pages and their files as served over HTTP: from the jar, with their types, with the security
 * headers (on every other answer too), and with nothing inline and nothing from elsewhere, so the
 * strict Content-Security-Policy holds for them.
 */
class WebPagesTest {

  @RegisterExtension final OpenAiGateway fixture = new OpenAiGateway();

  private Gateway gateway() {
    return fixture.gateway();
  }

  private record Answer(
      int status, String body, @Nullable String type, Map<String, List<String>> headers) {
    @Nullable String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> e.getValue().get(0))
          .findFirst()
          .orElse(null);
    }

    String required(String name) {
      String value = header(name);
      assertThat(value).as(name).isNotNull();
      return java.util.Objects.requireNonNull(value);
    }
  }

  private Answer get(String path, String... headers) throws Exception {
    Request.Builder request = new Request.Builder().url(gateway().url(path));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try (Response response = gateway().client().newCall(request.build()).execute()) {
      return new Answer(
          response.code(),
          response.body().string(),
          response.header("Content-Type"),
          response.headers().toMultimap());
    }
  }

  @Test
  void everyPageFileAndApiAnswerCarriesTheSecurityHeaders() throws Exception {
    for (String path :
        List.of(
            "/",
            "/assets/dictation.mjs",
            "/assets/dictation.css",
            "/assets/no-such-file.mjs",
            "/healthz",
            "/v1/models",
            "/no/such/path")) {
      Answer answer = get(path);
      SecurityHeaders.HEADERS.forEach(
          (name, value) -> assertThat(answer.header(name)).as(path + " " + name).isEqualTo(value));
    }
  }

  @Test
  void thePolicyAllowsNoInlineScriptNoEvalAndNoOtherOriginAndNoFraming() throws Exception {
    String policy = get("/").required("Content-Security-Policy");
    Map<String, Set<String>> directives = new java.util.HashMap<>();
    for (String directive : policy.split(";")) {
      List<String> words = Arrays.asList(directive.trim().split("\\s+"));
      directives.put(words.get(0), Set.copyOf(words.subList(1, words.size())));
    }

    assertThat(policy).doesNotContain("unsafe-inline", "unsafe-eval", "*", "http:", "https:");
    assertThat(directives.get("default-src")).containsExactly("'self'");
    assertThat(directives.get("script-src")).containsExactly("'self'");
    assertThat(directives.get("connect-src")).containsExactly("'self'");
    assertThat(directives.get("frame-ancestors")).containsExactly("'none'");
    assertThat(get("/").header("X-Frame-Options")).isEqualTo("DENY");
    assertThat(get("/").header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(get("/").header("Referrer-Policy")).isEqualTo("no-referrer");
  }

  @Test
  void thePageAndEveryFileItLoadsComeFromTheGatewayWithNothingInline() throws Exception {
    Answer page = get("/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(String.valueOf(page.type()).replace(" ", "")).isEqualTo("text/html;charset=utf-8");
    String html = page.body();
    // Inline script, inline style and event-handler attributes would all be refused by the CSP.
    assertThat(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(html).find()).isFalse();
    assertThat(html).doesNotContain("<style", " style=", "javascript:");
    assertThat(Pattern.compile("\\son[a-z]+=").matcher(html).find()).isFalse();
    for (String id : List.of("token", "record", "stop", "cancel", "status", "transcript")) {
      assertThat(html).contains("id=\"" + id + "\"");
    }
    assertThat(html).contains("id=\"status\" role=\"status\" aria-live=\"polite\"");

    // Every file the page names, and every module those import, is the gateway's own.
    Pattern reference =
        Pattern.compile("(?:src|href)=\"([^\"]+)\"|from '([^']+)'|addModule\\('([^']+)'\\)");
    Deque<String> toVisit = new ArrayDeque<>();
    Set<String> seen = new HashSet<>();
    collect(reference.matcher(html), "/", toVisit);
    while (!toVisit.isEmpty()) {
      String file = toVisit.pop();
      if (!seen.add(file)) {
        continue;
      }
      assertThat(file).as("a file of the gateway").startsWith("/assets/");
      Answer answer = get(file);
      assertThat(answer.status()).as(file).isEqualTo(200);
      assertThat(String.valueOf(answer.type()).replace(" ", ""))
          .as(file)
          .isIn(
              "text/javascript;charset=utf-8",
              "text/css;charset=utf-8",
              "image/svg+xml",
              "image/png");
      if (file.endsWith(".mjs") || file.endsWith(".js")) {
        assertThat(answer.body()).as(file).doesNotContain("eval(", "new Function", "innerHTML");
        collect(reference.matcher(answer.body()), file, toVisit);
      }
    }
    assertThat(seen)
        .contains(
            "/assets/dictation.mjs",
            "/assets/bolo.css",
            "/assets/dictation.css",
            "/assets/icon.svg",
            "/assets/apple-touch-icon.png",
            "/assets/recorder.mjs",
            "/assets/recorder-worklet.mjs",
            "/assets/wav.mjs",
            // Bolo's JavaScript client, which the build copies from bolo-client-js/src.
            "/assets/bolo-client/index.js",
            "/assets/bolo-client/client.js",
            "/assets/bolo-client/policy.js",
            "/assets/bolo-client/tus.js",
            "/assets/bolo-client/transport.js",
            "/assets/bolo-client/answers.js",
            "/assets/bolo-client/advice.js");
    // The page's copies of the client's modules are gone: the client is the one place they live.
    assertThat(seen)
        .doesNotContain(
            "/assets/resend-policy.mjs",
            "/assets/gateway.mjs",
            "/assets/answers.mjs",
            "/assets/tus.mjs",
            "/assets/xhr.mjs");
  }

  /**
   * Adds each reference, made absolute: a module imports another as {@code ./NAME}, relative to its
   * own folder ({@code from}).
   */
  private static void collect(Matcher matches, String from, Deque<String> toVisit) {
    while (matches.find()) {
      for (int group = 1; group <= matches.groupCount(); group++) {
        String found = matches.group(group);
        if (found != null) {
          toVisit.push(java.net.URI.create(from).resolve(found).toString());
        }
      }
    }
  }

  @Test
  void theIconIsWhereBrowsersAskForItWithoutAPageNamingIt() throws Exception {
    Answer icon = get("/favicon.ico");

    assertThat(icon.status()).isEqualTo(200);
    assertThat(icon.type()).isEqualTo("image/x-icon");
    assertThat(icon.required("ETag")).isEqualTo(get("/assets/favicon.ico").required("ETag"));
  }

  @Test
  void aFileIsRevalidatedByItsETagAndAnUnchangedOneCostsA304() throws Exception {
    Answer first = get("/assets/dictation.mjs");
    String etag = first.required("ETag");
    assertThat(first.header("Cache-Control")).isEqualTo("no-cache");
    assertThat(etag).matches("\"[0-9a-f]{32}\"");

    Answer again = get("/assets/dictation.mjs", "If-None-Match", etag);

    assertThat(again.status()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(get("/assets/dictation.mjs", "If-None-Match", "\"other\"").status()).isEqualTo(200);
  }

  @Test
  void onlyFilesOfThePagesFolderWithAKnownTypeAreServed() throws Exception {
    for (String path :
        List.of(
            "/assets/no-such-file.mjs",
            "/assets/dictation.html",
            "/assets/.hidden.css",
            "/assets/..%2Fhttp%2FRoutes.class",
            "/assets/..%2F..%2F..%2F..%2Flogback.xml",
            "/assets/%2E%2E%2Flogback.xml")) {
      Answer answer = get(path);
      assertThat(answer.status()).as(path).isEqualTo(404);
      assertThat(answer.type()).as(path).isEqualTo("application/json");
      assertThat(answer.body()).as(path).contains("\"code\":\"not_found\"");
    }
  }

  @Test
  void theFilesOfTheFolderInAJarAreReadAtStartAndOnlyThoseAreServed(@TempDir Path dir)
      throws Exception {
    Path jar = dir.resolve("pages.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (String folder : List.of("dev/", "dev/bolo/", "dev/bolo/server/")) {
        out.putNextEntry(new ZipEntry(folder));
      }
      String web = WebPages.FOLDER.substring(1);
      for (String name :
          List.of(
              "",
              "page.html",
              "app.mjs",
              "site.css",
              ".hidden.css",
              "notes.txt",
              "deeper/",
              "deeper/other.css",
              "deeper/.hidden.css",
              "deeper/still/",
              "deeper/still/deep.css")) {
        put(out, web + name);
      }
      put(out, "dev/bolo/server/outside.mjs");
    }

    WebPages pages =
        WebPages.loadFolderOf(
            URI.create("jar:" + jar.toUri() + "!" + WebPages.FOLDER + "page.html").toURL());

    // A subfolder's files are served by their path (the build's bolo-client/), nothing deeper.
    assertThat(pages.assetNames()).containsExactly("app.mjs", "deeper/other.css", "site.css");
    assertThat(pages.page("page.html")).isNotNull();
    assertThatThrownBy(() -> pages.page("app.mjs")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> pages.page("other.html")).isInstanceOf(IllegalArgumentException.class);
  }

  private static void put(JarOutputStream out, String name) throws IOException {
    out.putNextEntry(new ZipEntry(name));
    if (!name.endsWith("/")) {
      out.write(name.getBytes(StandardCharsets.UTF_8));
    }
    out.closeEntry();
  }
}
