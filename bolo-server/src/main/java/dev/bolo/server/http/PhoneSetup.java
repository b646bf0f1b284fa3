package dev.bolo.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bolo.server.tls.AuthorityCertificate;
import dev.bolo.server.tls.PhoneAccess;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.net.URI;

/**
 * What a phone needs to open the dictation page: the certificate of the gateway's own authority at
 * {@value PhoneAccess#AUTHORITY_PATH} (public, like the page; only its certificate, never a key),
 * and for the dashboard's QR code, {@code GET /admin/api/connect}: the page's URLs on the LAN and
 * whether a phone can record there; {@code POST /admin/api/qr}: the code itself, drawn here by
 * ZXing ({@link QrCodeSvg}). Thread safe.
 */
public final class PhoneSetup {

  /**
   * The type a phone's browser hands to its certificate installer (iOS asks to install a profile,
   * Android saves it for Settings › Security › Install a certificate); the body is DER.
   */
  static final String CERTIFICATE_TYPE = "application/x-x509-ca-cert";

  private final PhoneAccess phones;

  PhoneSetup(PhoneAccess phones) {
    this.phones = phones;
  }

  /** Serves the authority's certificate when the gateway has its own authority. */
  static void register(RoutesConfig routes, PhoneAccess phones) {
    AuthorityCertificate authority = phones.authority();
    if (authority != null) {
      byte[] der = authority.der();
      routes.get(
          PhoneAccess.AUTHORITY_PATH,
          ctx -> {
            ctx.header("Content-Disposition", "attachment; filename=\"bolo-ca.crt\"");
            ctx.header("Cache-Control", "no-cache");
            ctx.contentType(CERTIFICATE_TYPE).result(der);
          });
    }
  }

  /**
   * {@code GET /admin/api/connect}: {@code {"secure", "reachable", "page_urls", "authority",
   * "guide"}}. The URLs carry the port this request came in on.
   */
  void connect(Context ctx) {
    ObjectNode body = HttpJson.MAPPER.createObjectNode();
    body.put("secure", phones.isSecure());
    body.put("reachable", phones.isReachable());
    var urls = body.putArray("page_urls");
    for (URI url : phones.pageUrls(ctx.req().getLocalPort())) {
      urls.add(url.toString());
    }
    AuthorityCertificate authority = phones.authority();
    if (authority == null) {
      body.putNull("authority");
    } else {
      body.putObject("authority")
          .put("path", PhoneAccess.AUTHORITY_PATH)
          .put("sha256", authority.sha256Fingerprint())
          .put("name", authority.name());
    }
    body.put("guide", PhoneAccess.GUIDE);
    try {
      ctx.contentType("application/json").result(HttpJson.MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain values always serialises", e);
    }
  }

  /**
   * {@code POST /admin/api/qr} {@code {"text"}}: the text (a page address with a new device's token
   * in its fragment) as a QR code, {@code image/svg+xml}. The token comes back only to the gateway
   * that made it, over the admin's own connection; the answer is not kept by any cache.
   */
  void qrCode(Context ctx) {
    JsonNode request = AdminApi.bodyOf(ctx);
    if (request == null) {
      return;
    }
    JsonNode text = request.get("text");
    if (text == null || !text.isTextual() || !QrCodeSvg.drawable(text.asText())) {
      ErrorWriter.write(
          ctx,
          Dialect.NATIVE,
          Errors.invalid(
              "text",
              "text must be 1-"
                  + QrCodeSvg.MAX_TEXT_CHARS
                  + " printable ASCII characters, such as the page's address"));
      return;
    }
    ctx.header("Cache-Control", "no-store");
    ctx.contentType("image/svg+xml").result(QrCodeSvg.of(text.asText()));
  }
}
