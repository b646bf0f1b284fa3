package dev.bolo.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Throwaway certificates for the tests of TLS to a server (PostgreSQL, Redis), made with the {@code
 * openssl} command (Debian's; a missing one fails the test that needs it): a certificate authority
 * of its own and a server certificate signed by it, as PEM files, valid for two days, P-256 keys;
 * and {@link #run} for a test that reads or checks a certificate as {@code openssl} does.
 * Stateless.
 */
public final class TestCertificates {

  /**
   * The files {@link #issue} wrote: the CA's certificate (what a client trusts) and key, and the
   * server's certificate and key (mode 0600, as PostgreSQL and Redis require of a key file).
   */
  public record Issued(Path caCertificate, Path caKey, Path certificate, Path key) {}

  private TestCertificates() {}

  /**
   * Writes a new CA and a server certificate signed by it into {@code dir} ({@code ca.crt}, {@code
   * ca.key}, {@code server.crt}, {@code server.key}), for the host names {@code dnsNames} and the
   * addresses {@code ipAddresses} (its subject alternative names; the first name is also its common
   * name). Each call makes a CA of its own: another call's CA does not trust this server.
   */
  public static Issued issue(Path dir, List<String> dnsNames, List<String> ipAddresses) {
    if (dnsNames.isEmpty() && ipAddresses.isEmpty()) {
      throw new IllegalArgumentException("a server certificate needs a name or an address");
    }
    List<String> names = new ArrayList<>();
    dnsNames.forEach(name -> names.add("DNS:" + name));
    ipAddresses.forEach(address -> names.add("IP:" + address));
    String commonName = dnsNames.isEmpty() ? ipAddresses.getFirst() : dnsNames.getFirst();
    Issued issued =
        new Issued(
            dir.resolve("ca.crt"),
            dir.resolve("ca.key"),
            dir.resolve("server.crt"),
            dir.resolve("server.key"));
    Path config = dir.resolve("openssl.cnf");
    Path request = dir.resolve("server.csr");
    try {
      Files.createDirectories(dir);
      // A configuration of its own, so the system's openssl.cnf adds no extension twice.
      Files.writeString(
          config,
          """
          [req]
          distinguished_name = subject
          prompt = no
          [subject]
          CN = unused
          [ca]
          basicConstraints = critical, CA:TRUE
          keyUsage = critical, keyCertSign, cRLSign
          subjectKeyIdentifier = hash
          [server]
          basicConstraints = critical, CA:FALSE
          keyUsage = critical, digitalSignature
          extendedKeyUsage = serverAuth
          subjectKeyIdentifier = hash
          authorityKeyIdentifier = keyid
          subjectAltName = %s
          """
              .formatted(String.join(", ", names)));
      String[] key = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
      openssl(
          dir,
          List.of("req", "-config", config.toString(), "-x509", "-extensions", "ca"),
          List.of(key),
          List.of("-subj", "/CN=Bolo test CA " + System.nanoTime(), "-days", "2"),
          List.of("-keyout", issued.caKey().toString(), "-out", issued.caCertificate().toString()));
      openssl(
          dir,
          List.of("req", "-config", config.toString(), "-new"),
          List.of(key),
          List.of("-subj", "/CN=" + commonName),
          List.of("-keyout", issued.key().toString(), "-out", request.toString()));
      openssl(
          dir,
          List.of("x509", "-req", "-in", request.toString(), "-days", "2"),
          List.of("-CA", issued.caCertificate().toString(), "-CAkey", issued.caKey().toString()),
          List.of("-set_serial", Long.toString(System.nanoTime())),
          List.of("-extfile", config.toString(), "-extensions", "server"),
          List.of("-out", issued.certificate().toString()));
      for (Path privateKey : List.of(issued.caKey(), issued.key())) {
        Files.setPosixFilePermissions(privateKey, PosixFilePermissions.fromString("rw-------"));
      }
      Files.delete(request);
      return issued;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write certificates into " + dir, e);
    }
  }

  /** What an {@code openssl} command printed (standard output and error together) and its exit. */
  public record Run(int exitCode, String output) {

    public boolean succeeded() {
      return exitCode == 0;
    }
  }

  /**
   * Runs {@code openssl} with {@code arguments} in {@code dir} and returns what it printed, whether
   * it succeeded or not (a test of a refusal wants the failure); at most 30 s.
   */
  public static Run run(Path dir, List<String> arguments) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(arguments);
    Path output = dir.resolve("openssl.log");
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("openssl is not installed (apt-get install openssl)", e);
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("openssl ran over 30 s: " + String.join(" ", command));
      }
      return new Run(process.exitValue(), Files.readString(output));
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while openssl ran", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read what openssl printed", e);
    }
  }

  @SafeVarargs
  private static void openssl(Path dir, List<String>... arguments) {
    List<String> command = new ArrayList<>();
    for (List<String> part : arguments) {
      command.addAll(part);
    }
    Run run = run(dir, command);
    if (!run.succeeded()) {
      throw new IllegalStateException(
          "openssl failed: openssl " + String.join(" ", command) + "\n" + run.output());
    }
  }
}
