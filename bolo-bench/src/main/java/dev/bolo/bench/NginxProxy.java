package dev.bolo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * nginx in front of the provider stand-in: {@code proxy_pass} with request buffering, "a proxy that
 * only moves bytes", the row the gateway's overhead is compared with.
 */
final class NginxProxy {

  private NginxProxy() {}

  /**
   * Starts nginx on {@code port}, forwarding to the stand-in on {@code providerPort}, with its
   * configuration, logs and temporary bodies under {@code work}; it takes bodies of twice {@code
   * noteKb} plus 1 MB.
   */
  static Process start(Path work, int port, int providerPort, int noteKb) throws IOException {
    Path conf = work.resolve("nginx.conf");
    Files.createDirectories(work.resolve("nginx"));
    Files.writeString(
        conf,
        """
        daemon off;
        user %5$s;
        worker_processes auto;
        pid %1$s/nginx.pid;
        error_log %1$s/nginx/error.log warn;
        events { worker_connections 4096; }
        http {
          access_log off;
          client_body_temp_path %1$s/nginx/body;
          proxy_temp_path %1$s/nginx/proxy;
          fastcgi_temp_path %1$s/nginx/fastcgi;
          uwsgi_temp_path %1$s/nginx/uwsgi;
          scgi_temp_path %1$s/nginx/scgi;
          upstream provider { server 127.0.0.1:%3$d; keepalive 256; }
          server {
            listen 127.0.0.1:%2$d;
            client_max_body_size %4$dk;
            client_body_buffer_size 1m;
            location / {
              proxy_pass http://provider;
              proxy_http_version 1.1;
              proxy_set_header Connection "";
              proxy_request_buffering on;
            }
          }
        }
        """
            // Workers write large bodies into this run's private folder: they run as its owner.
            .formatted(
                work, port, providerPort, noteKb * 2 + 1024, System.getProperty("user.name")));
    return BenchRun.start(
        work.resolve("nginx.log"),
        Map.of(),
        List.of("nginx", "-p", work.toString(), "-c", conf.toString()));
  }
}
