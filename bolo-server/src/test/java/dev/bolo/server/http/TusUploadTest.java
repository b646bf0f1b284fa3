package dev.bolo.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.server.ledger.Device;
import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.testing.FakeProvider;
import dev.bolo.server.testing.Gateway;
import dev.bolo.server.testing.LedgerProbe;
import dev.bolo.server.testing.LogCapture;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.transcription.ResumableUploads;
import dev.bolo.server.transcription.UploadAppend;
import dev.bolo.testkit.Await;
import dev.bolo.testkit.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tus 1.0.0 at {@code /v1/uploads} against a real gateway and a fake provider. */
class TusUploadTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType OCTETS = MediaType.get("application/offset+octet-stream");

  @TempDir Path dataDir;
  private final ExecutorService appends = Executors.newCachedThreadPool();
  FakeProvider provider;
  MutableClock clock;
  Gateway gateway;
  LedgerProbe ledger;

  @BeforeEach
  void start() throws IOException {
    provider = new FakeProvider();
    clock = MutableClock.startingNow();
    gateway = Gateway.withClock(restartEnvironment(), clock);
    ledger = LedgerProbe.open(dataDir, gateway);
  }

  @AfterEach
  void stop() {
    appends.shutdownNow();
    provider.release();
    ledger.close();
    gateway.close();
    provider.close();
  }

  @Test
  void aNoteUploadedInThreeAppendsIsTranscribedOnceAndChargedLikeAPost() throws Exception {
    byte[] note = TestAudio.wav(2000, 1);
    String location =
        create(Gateway.TOKEN_A, note.length, "language", "en", "sha256", sha256(note));

    assertThat(append(Gateway.TOKEN_A, location, 0, slice(note, 0, 10_000)).code()).isEqualTo(204);
    Reply head = head(Gateway.TOKEN_A, location);
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.header("Upload-Offset")).isEqualTo("10000");
    assertThat(head.header("Upload-Length")).isEqualTo(Integer.toString(note.length));
    assertThat(head.header("Cache-Control")).isEqualTo("no-store");
    assertThat(head.header("Upload-Expires")).endsWith("GMT");
    assertThat(append(Gateway.TOKEN_A, location, 10_000, slice(note, 10_000, 40_000)).code())
        .isEqualTo(204);
    Reply last = append(Gateway.TOKEN_A, location, 40_000, slice(note, 40_000, note.length));
    assertThat(last.code()).isEqualTo(204);
    assertThat(last.header("Upload-Offset")).isEqualTo(Integer.toString(note.length));

    Reply answer = transcription(Gateway.TOKEN_A, location, 30);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.header("X-Bolo-Model")).isEqualTo("whisper-1");
    JsonNode body = JSON.readTree(answer.body());
    assertThat(body.get("text").asText())
        .isEqualTo("transcript of " + providerBytes() + " bytes in en");
    assertThat(body.get("audio_sha256").asText()).isEqualTo(sha256(note));
    assertThat(body.get("deduplicated").asBoolean()).isFalse();
    assertThat(body.get("duration_ms").asLong()).isEqualTo(2000);
    assertThat(provider.calls()).isEqualTo(1);
    assertThat(ledger.chargedMillis("alpha")).isEqualTo(2000);

    // The same note POSTed with the same settings is the same work: replayed, not charged again.
    Gateway.Reply post =
        gateway.send(gateway.nativeUpload(Gateway.TOKEN_A, note, "language", "en"));
    assertThat(post.status()).isEqualTo(200);
    assertThat(post.replayed()).isEqualTo("true");
    assertThat(provider.calls()).isEqualTo(1);
    assertThat(ledger.chargedMillis("alpha")).isEqualTo(2000);
  }

  private long providerBytes() throws InterruptedException {
    return provider.takeRequest().getBodySize();
  }

  @Test
  void creationWithUploadTakesTheFirstBytesAndAWholeNoteInOneRequestIsTranscribed()
      throws Exception {
    byte[] note = TestAudio.wav(1000, 2);
    Request request =
        tus(Gateway.TOKEN_A, gateway.url("/v1/uploads"))
            .header("Upload-Length", Integer.toString(note.length))
            .post(RequestBody.create(note, OCTETS))
            .build();
    String location;
    try (Response response = gateway.client().newCall(request).execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.header("Upload-Offset")).isEqualTo(Integer.toString(note.length));
      assertThat(response.header("Tus-Resumable")).isEqualTo("1.0.0");
      location = java.util.Objects.requireNonNull(response.header("Location"));
    }
    assertThat(location).matches("/v1/uploads/[0-9a-f]{32}");

    Reply answer = transcription(Gateway.TOKEN_A, location, 30);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(provider.calls()).isEqualTo(1);
  }

  @Test
  void anUploadResumesAfterTheGatewayRestartsOnTheSameDataDirectory() throws Exception {
    byte[] note = TestAudio.wav(3000, 11);
    String location =
        create(Gateway.TOKEN_A, note.length, "language", "de", "sha256", sha256(note));
    append(Gateway.TOKEN_A, location, 0, slice(note, 0, 30_000));
    ledger.close();
    gateway.close();

    gateway = Gateway.withClock(restartEnvironment(), clock);
    ledger = LedgerProbe.open(dataDir, gateway);

    Reply head = head(Gateway.TOKEN_A, location);
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.header("Upload-Offset")).isEqualTo("30000");
    assertThat(append(Gateway.TOKEN_A, location, 30_000, slice(note, 30_000, note.length)).code())
        .isEqualTo(204);
    // The hash was resumed across the restart: it matches the declared one and the whole note.
    assertTranscribedWholeOnce(location, note);
    assertThat(ledger.chargedMillis("alpha")).isEqualTo(3000);
  }

  @Test
  void anUploadWhoseSpoolFileWasLostIsToldToResendFromTheStartAndIsTranscribedWhole()
      throws Exception {
    byte[] note = TestAudio.wav(3000, 21);
    String location = create(Gateway.TOKEN_A, note.length, "sha256", sha256(note));
    assertThat(append(Gateway.TOKEN_A, location, 0, slice(note, 0, 30_000)).code()).isEqualTo(204);
    // The disk loses the bytes under the running gateway (a spool directory wiped).
    Files.delete(spoolFileOf(location));

    Reply lost = append(Gateway.TOKEN_A, location, 30_000, slice(note, 30_000, note.length));

    assertThat(lost.code()).as(lost.body()).isEqualTo(409);
    assertThat(lost.header("Upload-Offset")).isEqualTo("0");
    assertThat(JSON.readTree(lost.body()).get("code").asText()).isEqualTo("upload_offset_mismatch");
    assertThat(head(Gateway.TOKEN_A, location).header("Upload-Offset")).isEqualTo("0");
    assertThat(append(Gateway.TOKEN_A, location, 0, note).code()).isEqualTo(204);
    assertTranscribedWholeOnce(location, note);
  }

  @Test
  void anUploadWhoseSpoolFileLostItsTailAcrossARestartResumesFromWhatIsLeft() throws Exception {
    byte[] note = TestAudio.wav(3000, 22);
    String location = create(Gateway.TOKEN_A, note.length, "sha256", sha256(note));
    assertThat(append(Gateway.TOKEN_A, location, 0, slice(note, 0, 30_000)).code()).isEqualTo(204);
    ledger.close();
    gateway.close();
    // Restored from an older copy: 12,000 of the 30,000 bytes recorded are there.
    try (FileChannel file = FileChannel.open(spoolFileOf(location), StandardOpenOption.WRITE)) {
      file.truncate(12_000);
    }
    gateway = Gateway.withClock(restartEnvironment(), clock);
    ledger = LedgerProbe.open(dataDir, gateway);

    Reply lost = append(Gateway.TOKEN_A, location, 30_000, slice(note, 30_000, note.length));

    assertThat(lost.code()).as(lost.body()).isEqualTo(409);
    assertThat(lost.header("Upload-Offset")).isEqualTo("12000");
    assertThat(append(Gateway.TOKEN_A, location, 12_000, slice(note, 12_000, note.length)).code())
        .isEqualTo(204);
    assertTranscribedWholeOnce(location, note);
    assertThat(ledger.chargedMillis("alpha")).isEqualTo(3000);
  }

  @Test
  void anAppendHoldingAStaleRecordNeverCutsTheFileOfANoteBeingTranscribed() throws Exception {
    byte[] note = TestAudio.wav(3000, 24);
    String location = create(Gateway.TOKEN_A, note.length, "sha256", sha256(note));
    assertThat(append(Gateway.TOKEN_A, location, 0, slice(note, 0, 60_000)).code()).isEqualTo(204);
    String id = location.substring(location.lastIndexOf('/') + 1);
    ResumableUploads uploads = gateway.app().resumableUploads();
    Device alpha = new Device("alpha");
    // A resend of the last append that read the record before the first one ended.
    StoredUpload stale = uploads.find(alpha, id).orElseThrow();
    provider.hold();
    assertThat(append(Gateway.TOKEN_A, location, 60_000, slice(note, 60_000, note.length)).code())
        .isEqualTo(204);

    UploadAppend late =
        uploads.append(
            alpha, stale, 60_000, 100, new ByteArrayInputStream(new byte[100]), false, "late");

    assertThat(late).isEqualTo(new UploadAppend.WrongOffset(note.length));
    // The file the transcription reads is whole.
    assertThat(Files.size(spoolFileOf(location))).isEqualTo(note.length);
    provider.release();
    assertTranscribedWholeOnce(location, note);
  }

  @Test
  void anUploadAtOffsetZeroWhoseFileAndDirectoryWereRemovedTakesItsFirstAppend() throws Exception {
    byte[] note = TestAudio.wav(1000, 25);
    String location = create(Gateway.TOKEN_A, note.length);
    // An empty append opens the upload's file, as a client probing it does.
    assertThat(append(Gateway.TOKEN_A, location, 0, new byte[0]).code()).isEqualTo(204);
    Path file = spoolFileOf(location);
    Files.delete(file);
    Files.delete(file.getParent());

    assertThat(append(Gateway.TOKEN_A, location, 0, note).code()).isEqualTo(204);

    assertTranscribedWholeOnce(location, note);
  }

  /** The upload's transcription is 200, of the whole note, from one provider call. */
  private void assertTranscribedWholeOnce(String location, byte[] note) throws Exception {
    Reply answer = transcription(Gateway.TOKEN_A, location, 30);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(JSON.readTree(answer.body()).get("audio_sha256").asText()).isEqualTo(sha256(note));
    assertThat(provider.calls()).isEqualTo(1);
  }

  private Path spoolFileOf(String location) throws IOException {
    String name = location.substring(location.lastIndexOf('/') + 1) + ".part";
    return spoolFiles().stream()
        .filter(file -> file.getFileName().toString().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no spool file " + name));
  }

  private Map<String, String> restartEnvironment() {
    Map<String, String> env = new HashMap<>(Gateway.openAiEnvironment(provider, dataDir));
    env.put("BOLO_MAX_UPLOAD_BYTES", "1000000");
    // A quarter of it, 1 MB, is the largest resumable upload and what a device's uploads may hold.
    env.put("BOLO_SPOOL_MAX_BYTES", "4000000");
    env.put("BOLO_UPLOAD_TTL", "1h");
    env.put("BOLO_TRIAL_SECONDS", "3600");
    return env;
  }

  @Test
  void anAppendAtTheWrongOffsetIs409WithTheStoredOffsetAndStoresNothing() throws Exception {
    byte[] note = TestAudio.wav(1000, 3);
    String location = create(Gateway.TOKEN_A, note.length);
    append(Gateway.TOKEN_A, location, 0, slice(note, 0, 5000));

    Reply wrong = append(Gateway.TOKEN_A, location, 4000, slice(note, 4000, 9000));

    assertThat(wrong.code()).isEqualTo(409);
    assertThat(wrong.header("Upload-Offset")).isEqualTo("5000");
    assertThat(JSON.readTree(wrong.body()).get("code").asText())
        .isEqualTo("upload_offset_mismatch");
    assertThat(head(Gateway.TOKEN_A, location).header("Upload-Offset")).isEqualTo("5000");
    // Resumed from the right offset, the note is whole and transcribed.
    append(Gateway.TOKEN_A, location, 5000, slice(note, 5000, note.length));
    assertThat(transcription(Gateway.TOKEN_A, location, 30).status()).isEqualTo(200);
    assertThat(
            JSON.readTree(transcription(Gateway.TOKEN_A, location, 0).body())
                .get("audio_sha256")
                .asText())
        .isEqualTo(sha256(note));
  }

  @Test
  void anAppendResentAfterTheUploadEndedIsToldItsOffsetAndLeavesNoFileBehind() throws Exception {
    byte[] note = TestAudio.wav(1000, 13);
    String location = create(Gateway.TOKEN_A, note.length);
    assertThat(append(Gateway.TOKEN_A, location, 0, note).code()).isEqualTo(204);
    assertThat(transcription(Gateway.TOKEN_A, location, 30).status()).isEqualTo(200);
    String length = Integer.toString(note.length);

    // The last append again, as a phone that lost its answer resends it: nothing new.
    Reply resent = append(Gateway.TOKEN_A, location, note.length, new byte[0]);
    assertThat(resent.code()).as(resent.body()).isEqualTo(204);
    assertThat(resent.header("Upload-Offset")).isEqualTo(length);
    // A byte past the end of an ended upload: the stored offset, not a server fault.
    Reply past = append(Gateway.TOKEN_A, location, note.length, new byte[] {1});
    assertThat(past.code()).as(past.body()).isEqualTo(409);
    assertThat(past.header("Upload-Offset")).isEqualTo(length);
    assertThat(JSON.readTree(past.body()).get("code").asText()).isEqualTo("upload_offset_mismatch");

    assertThat(spoolFiles()).isEmpty();
    assertThat(transcription(Gateway.TOKEN_A, location, 0).status()).isEqualTo(200);
    assertThat(provider.calls()).isEqualTo(1);
  }

  @Test
  void aWavWithNoSampleIsRefusedAsEmptyAndNeverReachesTheProvider() throws Exception {
    byte[] header = TestAudio.wav(0, 23);
    String location = create(Gateway.TOKEN_A, header.length);

    assertThat(append(Gateway.TOKEN_A, location, 0, header).code()).isEqualTo(204);

    Reply answer = transcription(Gateway.TOKEN_A, location, 30);
    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    assertThat(JSON.readTree(answer.body()).get("code").asText()).isEqualTo("empty_audio");
    assertThat(provider.calls()).isZero();
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aNoteWhoseHashContradictsTheDeclaredOneIsRefusedUntranscribedAndUncharged()
      throws Exception {
    byte[] note = TestAudio.wav(1000, 4);
    String declared = sha256(TestAudio.wav(1000, 5));
    String location = create(Gateway.TOKEN_A, note.length, "sha256", declared);

    assertThat(append(Gateway.TOKEN_A, location, 0, note).code()).isEqualTo(204);

    Reply answer = transcription(Gateway.TOKEN_A, location, 30);
    assertThat(answer.status()).isEqualTo(400);
    assertThat(JSON.readTree(answer.body()).get("code").asText()).isEqualTo("audio_hash_mismatch");
    assertThat(provider.calls()).isZero();
    assertThat(ledger.chargedMillis("alpha")).isZero();
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void anAppendPastTheUploadLengthIsRefusedAndNothingOfItIsKept() throws Exception {
    byte[] note = TestAudio.wav(1000, 6);
    String location = create(Gateway.TOKEN_A, note.length);
    append(Gateway.TOKEN_A, location, 0, slice(note, 0, 1000));
    byte[] tooMuch = Arrays.copyOfRange(note, 1000, note.length + 100);

    Reply refused = append(Gateway.TOKEN_A, location, 1000, tooMuch);

    assertThat(refused.code()).isEqualTo(413);
    assertThat(head(Gateway.TOKEN_A, location).header("Upload-Offset")).isEqualTo("1000");
    assertThat(spoolFiles())
        .singleElement()
        .satisfies(file -> assertThat(Files.size(file)).isEqualTo(1000));
    assertThat(provider.calls()).isZero();
  }

  @Test
  void anotherDevicesUploadIsNotFoundForEveryMethod() throws Exception {
    byte[] note = TestAudio.wav(1000, 7);
    String location = create(Gateway.TOKEN_A, note.length);

    assertThat(head(Gateway.TOKEN_B, location).status()).isEqualTo(404);
    assertThat(append(Gateway.TOKEN_B, location, 0, note).code()).isEqualTo(404);
    assertThat(delete(Gateway.TOKEN_B, location)).isEqualTo(404);
    assertThat(transcription(Gateway.TOKEN_B, location, 0).status()).isEqualTo(404);
    assertThat(head(Gateway.TOKEN_A, location).header("Upload-Offset")).isEqualTo("0");
  }

  @Test
  void anExpiredUploadIsNotFoundAndIsSweptWithItsBytes() throws Exception {
    byte[] note = TestAudio.wav(1000, 8);
    String location = create(Gateway.TOKEN_A, note.length);
    append(Gateway.TOKEN_A, location, 0, slice(note, 0, 1000));
    assertThat(spoolFiles()).hasSize(1);

    clock.advance(Duration.ofMinutes(61));

    assertThat(head(Gateway.TOKEN_A, location).status()).isEqualTo(404);
    assertThat(append(Gateway.TOKEN_A, location, 1000, slice(note, 1000, note.length)).code())
        .isEqualTo(404);
    assertThat(gateway.app().sweepExpiredUploads()).isEqualTo(1);
    assertThat(spoolFiles()).isEmpty();
    assertThat(provider.calls()).isZero();
  }

  @Test
  void theSweepLeavesAnExpiredUploadAnAppendIsStoringIntoForItsNextRun() throws Exception {
    byte[] note = TestAudio.wav(1000, 26);
    String location = create(Gateway.TOKEN_A, note.length);
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> stalled = stalledAppend(location, note, release);

    clock.advance(Duration.ofMinutes(61));
    assertThat(gateway.app().sweepExpiredUploads()).isZero();
    release.countDown();

    // The append ends as it began, not with the file deleted under it (500 before).
    assertThat(stalled.get(30, TimeUnit.SECONDS)).isEqualTo(204);
    assertThat(gateway.app().sweepExpiredUploads()).isEqualTo(1);
    assertThat(spoolFiles()).isEmpty();
    assertThat(head(Gateway.TOKEN_A, location).status()).isEqualTo(404);
  }

  @Test
  void aTerminationThatWaitedForTheLastAppendLeavesTheNoteItsFileAndTheSpoolItsCount()
      throws Exception {
    byte[] note = TestAudio.wav(1000, 27);
    String location = create(Gateway.TOKEN_A, note.length, "sha256", sha256(note));
    CountDownLatch release = new CountDownLatch(1);
    provider.hold();
    Future<Integer> last = stalledAppendOf(location, note, release);
    // The DELETE waits for the append's lock; the append then completes the note.
    Future<Integer> deleted = appends.submit(() -> delete(Gateway.TOKEN_A, location));
    assertThat(deleted)
        .as("the DELETE waits for the append")
        .failsWithin(Duration.ofMillis(300))
        .withThrowableOfType(TimeoutException.class);
    release.countDown();
    assertThat(last.get(30, TimeUnit.SECONDS)).isEqualTo(204);
    assertThat(deleted.get(30, TimeUnit.SECONDS)).isIn(204, 404);

    // The file belongs to the transcription now: whole, and counted once in the spool.
    assertThat(Files.size(spoolFileOf(location))).isEqualTo(note.length);
    provider.release();
    Await.until(
        () -> gateway.app().metrics().scrape().contains("\nbolo_spool_bytes 0.0\n"),
        () -> "the spool file deleted once transcribed");
    assertThat(spoolFiles()).isEmpty();
    assertThat(FakeProvider.bodyText(provider.takeRequest()).length()).isGreaterThan(note.length);
  }

  @Test
  void terminationDeletesTheUploadAndItsBytes() throws Exception {
    byte[] note = TestAudio.wav(1000, 9);
    String location = create(Gateway.TOKEN_A, note.length);
    append(Gateway.TOKEN_A, location, 0, slice(note, 0, 1000));

    assertThat(delete(Gateway.TOKEN_A, location)).isEqualTo(204);

    assertThat(head(Gateway.TOKEN_A, location).status()).isEqualTo(404);
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void optionsTellsTheVersionExtensionsAndMaxSizeAndOtherVersionsAre412() throws Exception {
    Request options =
        new Request.Builder().url(gateway.url("/v1/uploads")).method("OPTIONS", null).build();
    try (Response response = gateway.client().newCall(options).execute()) {
      assertThat(response.code()).isEqualTo(204);
      assertThat(response.header("Tus-Version")).isEqualTo("1.0.0");
      assertThat(response.header("Tus-Extension"))
          .isEqualTo("creation,creation-with-upload,termination,expiration");
      assertThat(response.header("Tus-Max-Size")).isEqualTo("1000000");
    }
    Request noVersion =
        new Request.Builder()
            .url(gateway.url("/v1/uploads"))
            .header("Authorization", "Bearer " + Gateway.TOKEN_A)
            .header("Upload-Length", "100")
            .post(RequestBody.create(new byte[0]))
            .build();
    try (Response response = gateway.client().newCall(noVersion).execute()) {
      assertThat(response.code()).isEqualTo(412);
      assertThat(response.header("Tus-Version")).isEqualTo("1.0.0");
    }
  }

  @Test
  void badCreationsAreRefusedBeforeAnyByteIsTaken() throws Exception {
    assertThat(createStatus(Gateway.TOKEN_A, "1000001")).isEqualTo(413);
    assertThat(createStatus(Gateway.TOKEN_A, "-1")).isEqualTo(400);
    assertThat(createStatus(Gateway.TOKEN_A, null)).isEqualTo(400);
    assertThat(createStatus(null, "100")).isEqualTo(401);
    assertThat(createStatus(Gateway.TOKEN_A, "100", "temperature", "hot")).isEqualTo(400);
    assertThat(createStatus(Gateway.TOKEN_A, "100", "model", "not-offered")).isEqualTo(422);
    assertThat(createStatus(Gateway.TOKEN_A, "100", "sha256", "abc")).isEqualTo(400);
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aDeviceAtItsLimitLosesItsOldestIdleUploadNotOneStillReceivingBytes() throws Exception {
    byte[] note = TestAudio.wav(1000, 14);
    List<String> locations = new ArrayList<>();
    // BOLO_MAX_OPEN_UPLOADS_PER_DEVICE's default of 8, the oldest first.
    for (int i = 0; i < 8; i++) {
      locations.add(create(Gateway.TOKEN_A, note.length));
      clock.advance(Duration.ofSeconds(1));
    }
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> stalled = stalledAppend(locations.get(0), note, release);

    // The phone lost track of the others (a creation whose answer never arrived, say): a new
    // upload takes the place of the oldest one no append is storing into.
    String newest = create(Gateway.TOKEN_A, note.length);

    assertThat(head(Gateway.TOKEN_A, locations.get(1)).status()).isEqualTo(404);
    for (String kept : locations.subList(2, 8)) {
      assertThat(head(Gateway.TOKEN_A, kept).status()).isEqualTo(200);
    }
    assertThat(head(Gateway.TOKEN_A, newest).status()).isEqualTo(200);
    release.countDown();
    assertThat(stalled.get(30, TimeUnit.SECONDS)).isEqualTo(204);
    assertThat(head(Gateway.TOKEN_A, locations.get(0)).header("Upload-Offset")).isEqualTo("2000");
    assertThat(createStatus(Gateway.TOKEN_B, "1000")).isEqualTo(201);
  }

  @Test
  void aDeviceWhoseUploadsAreAllReceivingBytesIsToldToWait() throws Exception {
    restartWith("BOLO_MAX_OPEN_UPLOADS_PER_DEVICE", "1");
    assertOneUnfinishedUploadAtATime();
  }

  @Test
  void theFormerNameStillBoundsUnfinishedUploadsAndTheStartNamesTheNewVariablesOnce()
      throws Exception {
    String logged;
    try (LogCapture log = LogCapture.start()) {
      restartWith("BOLO_MAX_UPLOADS_PER_DEVICE", "1");
      logged = log.text();
    }
    assertOneUnfinishedUploadAtATime();

    List<String> warnings =
        logged.lines().filter(line -> line.contains("BOLO_MAX_UPLOADS_PER_DEVICE")).toList();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0))
        .startsWith("WARN")
        .contains("BOLO_MAX_BODIES_PER_DEVICE", "BOLO_MAX_OPEN_UPLOADS_PER_DEVICE");
  }

  @Test
  void aDeviceSendingAsManyBodiesAsItMayMayStillCreateAnUploadButNotSendAnotherBody()
      throws Exception {
    restartWith("BOLO_MAX_BODIES_PER_DEVICE", "1");
    byte[] note = TestAudio.wav(1000, 16);
    String first = create(Gateway.TOKEN_A, note.length);
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> stalled = stalledAppend(first, note, release);

    // A creation carries no body: only the unfinished uploads bound it.
    String second = create(Gateway.TOKEN_A, note.length);
    Reply refused = append(Gateway.TOKEN_A, second, 0, slice(note, 0, 1000));

    assertThat(refused.code()).as(refused.body()).isEqualTo(429);
    assertThat(JSON.readTree(refused.body()).get("code").asText()).isEqualTo("rate_limited");
    assertThat(JSON.readTree(refused.body()).get("error").asText())
        .contains("already sending 1 bodies at once");
    release.countDown();
    assertThat(stalled.get(30, TimeUnit.SECONDS)).isEqualTo(204);
    assertThat(append(Gateway.TOKEN_A, second, 0, slice(note, 0, 1000)).code()).isEqualTo(204);
  }

  /** Restarts the gateway with one more variable set. */
  private void restartWith(String variable, String value) throws IOException {
    gateway.close();
    Map<String, String> env = restartEnvironment();
    env.put(variable, value);
    gateway = Gateway.withClock(env, clock);
  }

  /** A second creation while the device's one upload is receiving bytes is told to wait. */
  private void assertOneUnfinishedUploadAtATime() throws Exception {
    byte[] note = TestAudio.wav(1000, 15);
    String location = create(Gateway.TOKEN_A, note.length);
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> stalled = stalledAppend(location, note, release);

    Reply refused = call(creation(Gateway.TOKEN_A, Integer.toString(note.length)));

    assertThat(refused.code()).as(refused.body()).isEqualTo(429);
    assertThat(JSON.readTree(refused.body()).get("code").asText()).isEqualTo("rate_limited");
    assertThat(refused.header("Retry-After")).isEqualTo("5");
    release.countDown();
    assertThat(stalled.get(30, TimeUnit.SECONDS)).isEqualTo(204);
    assertThat(head(Gateway.TOKEN_A, location).header("Upload-Offset")).isEqualTo("2000");
  }

  @Test
  void concurrentCreationsNeverLeaveTheDeviceMoreUnfinishedUploadsThanItsLimit() throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Reply>> replies = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(20)) {
      for (int i = 0; i < 20; i++) {
        replies.add(
            pool.submit(
                () -> {
                  start.await();
                  return call(creation(Gateway.TOKEN_A, "1000"));
                }));
      }
      start.countDown();
      List<String> created = new ArrayList<>();
      for (Future<Reply> reply : replies) {
        Reply answer = reply.get(30, TimeUnit.SECONDS);
        assertThat(answer.code()).as(answer.body()).isIn(201, 429);
        if (answer.code() == 201) {
          created.add(java.util.Objects.requireNonNull(answer.header("Location")));
        }
      }
      long live = 0;
      for (String location : created) {
        live += head(Gateway.TOKEN_A, location).status() == 200 ? 1 : 0;
      }
      // BOLO_MAX_OPEN_UPLOADS_PER_DEVICE's default of 8: older ones made room for newer ones.
      assertThat(created).hasSizeGreaterThanOrEqualTo(8);
      assertThat(live).isEqualTo(8);
    }
  }

  /**
   * Appends 2,000 bytes of {@code note} at offset 0 on another thread, stalling after the first
   * 1,000 until {@code release} opens; returns once the gateway has stored those 1,000 bytes. The
   * future holds the append's status code.
   */
  private Future<Integer> stalledAppend(String location, byte[] note, CountDownLatch release)
      throws Exception {
    return stalledAppendOf(location, Arrays.copyOf(note, 2000), release);
  }

  /** As {@link #stalledAppend}, appending all of {@code body} (more than 1,000 bytes). */
  private Future<Integer> stalledAppendOf(String location, byte[] body, CountDownLatch release)
      throws Exception {
    java.net.URI uri = java.net.URI.create(gateway.url(location));
    Future<Integer> status =
        appends.submit(
            () -> {
              try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
                java.io.OutputStream out = socket.getOutputStream();
                String head =
                    "PATCH "
                        + location
                        + " HTTP/1.1\r\nHost: "
                        + uri.getHost()
                        + "\r\nAuthorization: Bearer "
                        + Gateway.TOKEN_A
                        + "\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
                        + "Content-Type: application/offset+octet-stream\r\n"
                        + "Content-Length: "
                        + body.length
                        + "\r\nConnection: close\r\n\r\n";
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(body, 0, 1000);
                out.flush();
                release.await(30, TimeUnit.SECONDS);
                out.write(body, 1000, body.length - 1000);
                out.flush();
                String statusLine =
                    new java.io.BufferedReader(
                            new java.io.InputStreamReader(
                                socket.getInputStream(), StandardCharsets.US_ASCII))
                        .readLine();
                return Integer.parseInt(statusLine.substring(9, 12));
              }
            });
    String file = location.substring(location.lastIndexOf('/') + 1) + ".part";
    Await.until(
        () -> sizeOf(file) >= 1000 || status.isDone(),
        () -> "the stalled append's first bytes in " + file);
    assertThat(status).isNotDone();
    return status;
  }

  /** The size of the spool file named {@code name}, -1 while there is none. */
  private long sizeOf(String name) {
    try {
      for (Path file : spoolFiles()) {
        if (file.getFileName().toString().equals(name)) {
          return Files.size(file);
        }
      }
    } catch (IOException e) {
      // Not there yet, or moved meanwhile: asked again.
    }
    return -1;
  }

  @Test
  void aNoteTheProviderFailsIsAnsweredWithThePostsErrorAndNothingIsCharged() throws Exception {
    provider.enqueue(new MockResponse.Builder().code(500).body("{}").build());
    byte[] note = TestAudio.wav(1000, 10);
    String location = create(Gateway.TOKEN_A, note.length);
    append(Gateway.TOKEN_A, location, 0, note);

    Reply answer = transcription(Gateway.TOKEN_A, location, 30);

    assertThat(answer.status()).isEqualTo(502);
    assertThat(JSON.readTree(answer.body()).get("code").asText()).isEqualTo("upstream_error");
    assertThat(ledger.chargedMillis("alpha")).isZero();
  }

  @Test
  void anIncompleteUploadsTranscriptionIsRunning() throws Exception {
    String location = create(Gateway.TOKEN_A, 5000);
    Reply running = transcription(Gateway.TOKEN_A, location, 0);
    assertThat(running.status()).isEqualTo(202);
    assertThat(running.header("Retry-After")).isEqualTo("1");
    JsonNode body = JSON.readTree(running.body());
    assertThat(body.get("status").asText()).isEqualTo("running");
    // No note yet, so nothing of it is done.
    assertThat(body.has("seconds_done")).isFalse();
    assertThat(body.has("seconds_total")).isFalse();
  }

  // --- a tus client in a few lines ---

  record Reply(int status, String body, Map<String, String> headers) {
    int code() {
      return status;
    }

    @Nullable String header(String name) {
      return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }
  }

  private Request.Builder tus(@Nullable String token, String url) {
    Request.Builder builder = new Request.Builder().url(url).header("Tus-Resumable", "1.0.0");
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder;
  }

  private String create(String token, long length, String... metadata) throws IOException {
    try (Response response =
        gateway.client().newCall(creation(token, Long.toString(length), metadata)).execute()) {
      assertThat(response.code()).as(response.body().string()).isEqualTo(201);
      return java.util.Objects.requireNonNull(response.header("Location"));
    }
  }

  private int createStatus(@Nullable String token, @Nullable String length, String... metadata)
      throws IOException {
    try (Response response =
        gateway.client().newCall(creation(token, length, metadata)).execute()) {
      return response.code();
    }
  }

  private Request creation(@Nullable String token, @Nullable String length, String... metadata) {
    Request.Builder builder = tus(token, gateway.url("/v1/uploads"));
    if (length != null) {
      builder.header("Upload-Length", length);
    }
    StringBuilder pairs = new StringBuilder();
    for (int i = 0; i + 1 < metadata.length; i += 2) {
      if (!pairs.isEmpty()) {
        pairs.append(',');
      }
      pairs
          .append(metadata[i])
          .append(' ')
          .append(
              Base64.getEncoder().encodeToString(metadata[i + 1].getBytes(StandardCharsets.UTF_8)));
    }
    if (!pairs.isEmpty()) {
      builder.header("Upload-Metadata", pairs.toString());
    }
    return builder.post(RequestBody.create(new byte[0])).build();
  }

  private Reply append(String token, String location, long offset, byte[] bytes)
      throws IOException {
    return call(
        tus(token, gateway.url(location))
            .header("Upload-Offset", Long.toString(offset))
            .patch(RequestBody.create(bytes, OCTETS))
            .build());
  }

  private Reply head(String token, String location) throws IOException {
    return call(tus(token, gateway.url(location)).head().build());
  }

  private int delete(String token, String location) throws IOException {
    return call(tus(token, gateway.url(location)).delete().build()).status();
  }

  private Reply transcription(String token, String location, int wait) throws IOException {
    return call(
        new Request.Builder()
            .url(gateway.url(location + "/transcription?wait=" + wait))
            .header("Authorization", "Bearer " + token)
            .build());
  }

  private Reply call(Request request) throws IOException {
    try (Response response = gateway.client().newCall(request).execute()) {
      Map<String, String> headers = new HashMap<>();
      response
          .headers()
          .forEach(
              h -> headers.put(h.getFirst().toLowerCase(java.util.Locale.ROOT), h.getSecond()));
      return new Reply(response.code(), response.body().string(), headers);
    }
  }

  private static byte[] slice(byte[] bytes, int from, int to) {
    return Arrays.copyOfRange(bytes, from, to);
  }

  private java.util.List<Path> spoolFiles() throws IOException {
    Path spool = dataDir.resolve("spool");
    if (!Files.exists(spool)) {
      return java.util.List.of();
    }
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
