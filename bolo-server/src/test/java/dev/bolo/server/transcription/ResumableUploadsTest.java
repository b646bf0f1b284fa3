package dev.bolo.server.transcription;

import static dev.bolo.server.transcription.UploadsOnMemory.ALPHA;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.server.ledger.StoredUpload;
import dev.bolo.server.testing.TestAudio;
import dev.bolo.server.work.Problem;
import dev.bolo.server.work.WorkResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Resumable uploads on an in-memory registry and a test's spool folder: no HTTP, no database. */
class ResumableUploadsTest {

  private static final Duration LOCK_WAIT = Duration.ofMillis(200);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path spool;
  private UploadsOnMemory memory;
  private final byte[] note = TestAudio.wav(1000, 7);

  @BeforeEach
  void start() {
    memory = new UploadsOnMemory(spool, LOCK_WAIT);
  }

  @Test
  void aNoteAppendedInTwoPiecesIsTranscribedOnceAndGivesItsSpoolBack() throws Exception {
    StoredUpload upload = create(memory, sha256(note));
    assertThat(memory.reader.spoolBytesInUse()).isEqualTo(note.length);

    UploadAppend first = append(memory, upload, 0, Arrays.copyOfRange(note, 0, 5000));
    UploadAppend last = append(memory, upload, 5000, Arrays.copyOfRange(note, 5000, note.length));

    assertThat(first)
        .isEqualTo(new UploadAppend.Appended(upload.withOffset(5000, note.length), null));
    CompletableFuture<UploadEnding> ending = endingOf(last);
    assertThat(stateOf(upload)).isEqualTo(StoredUpload.State.TRANSCRIBING);
    assertThat(memory.runQueued()).isEqualTo(1);
    assertThat(ending.get())
        .isInstanceOfSatisfying(
            UploadEnding.Transcribed.class,
            t -> assertThat(t.transcript().text()).isEqualTo(UploadsOnMemory.textOf(sha256(note))));
    assertThat(stateOf(upload)).isEqualTo(StoredUpload.State.DONE);
    assertThat(memory.transcriptions).hasValue(1);
    assertThat(memory.reader.spoolBytesInUse()).isZero();
    assertThat(spoolFiles()).isEmpty();
    assertThat(progressOf(memory, upload)).isInstanceOf(UploadProgress.Ended.class);
  }

  @Test
  void anAppendAtAnotherOffsetIsToldTheStoredOneAndKeepsNothing() throws Exception {
    StoredUpload upload = create(memory, null);
    append(memory, upload, 0, Arrays.copyOfRange(note, 0, 5000));

    UploadAppend wrong =
        append(memory, upload.withOffset(5000, note.length), 4000, new byte[] {1, 2, 3});

    assertThat(wrong).isEqualTo(new UploadAppend.WrongOffset(5000));
    assertThat(memory.registry.find(upload.id()).orElseThrow().offset()).isEqualTo(5000);
  }

  @Test
  void aNoteWhoseDeclaredHashDiffersEndsAsAMismatchWithoutBeingTranscribed() throws Exception {
    String declared = sha256(new byte[] {1});
    StoredUpload upload = create(memory, declared);

    UploadAppend whole = append(memory, upload, 0, note);

    assertThat(endingOf(whole).getNow(null))
        .isEqualTo(new UploadEnding.HashMismatch(declared, sha256(note)));
    assertThat(memory.queued).isEmpty();
    assertThat(memory.transcriptions).hasValue(0);
    assertThat(stateOf(upload)).isEqualTo(StoredUpload.State.FAILED);
    assertThat(progressOf(memory, upload))
        .isEqualTo(new UploadProgress.Ended(new UploadEnding.HashMismatch(declared, sha256(note))));
    assertThat(memory.reader.spoolBytesInUse()).isZero();
  }

  @Test
  void anAppendStillArrivingLocksOutASecondAppendATerminationAndAnOffsetQuestion()
      throws Exception {
    StoredUpload upload = create(memory, null);
    StalledBody body = new StalledBody(Arrays.copyOfRange(note, 0, 5000));
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<UploadAppend> arriving =
          thread.submit(
              () -> memory.uploads.append(ALPHA, upload, 0, note.length, body, false, "a"));
      assertThat(body.stalled.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

      assertThat(append(memory, upload, 0, note)).isEqualTo(new UploadAppend.Locked());
      assertThat(memory.uploads.terminate(upload)).isEqualTo(UploadTermination.BUSY);
      assertThat(memory.uploads.settled(ALPHA, upload)).isEmpty();
      memory.clock.advance(UploadsOnMemory.TTL.plusSeconds(1));
      assertThat(memory.uploads.sweep()).isZero();

      body.resume.countDown();
      assertThat(arriving.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
          .isInstanceOf(UploadAppend.Appended.class);
      assertThat(memory.uploads.sweep()).isEqualTo(1);
      assertThat(memory.reader.spoolBytesInUse()).isZero();
      assertThat(spoolFiles()).isEmpty();
    } finally {
      body.resume.countDown();
      thread.shutdownNow();
    }
  }

  @Test
  void anExpiredUploadIsSweptWithItsBytesAndItsSpoolBudget() throws Exception {
    StoredUpload upload = create(memory, null);
    append(memory, upload, 0, Arrays.copyOfRange(note, 0, 5000));
    memory.clock.advance(UploadsOnMemory.TTL.minusSeconds(1));
    assertThat(memory.uploads.sweep()).isZero();

    memory.clock.advance(Duration.ofSeconds(1));

    assertThat(memory.uploads.sweep()).isEqualTo(1);
    assertThat(memory.registry.find(upload.id())).isEmpty();
    assertThat(memory.reader.spoolBytesInUse()).isZero();
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void aDeviceAtItsBoundMakesRoomByDeletingItsOldestIdleUpload() throws Exception {
    StoredUpload oldest = create(memory, null);
    memory.clock.advance(Duration.ofSeconds(1));
    StoredUpload second = create(memory, null);
    memory.clock.advance(Duration.ofSeconds(1));

    StoredUpload third = create(memory, null);

    assertThat(memory.registry.find(oldest.id())).isEmpty();
    assertThat(memory.registry.find(second.id())).isPresent();
    assertThat(memory.registry.find(third.id())).isPresent();
    assertThat(memory.reader.spoolBytesInUse()).isEqualTo(2L * note.length);
  }

  @Test
  void anOrphanIsTranscribedAgainOnceHoweverManyAskAtOnce() throws Exception {
    StoredUpload upload = create(memory, sha256(note));
    endingOf(append(memory, upload, 0, note));
    // The gateway stops before its queued transcription ran: the bytes stay in the spool.
    UploadsOnMemory restarted = memory.restarted();
    restarted.uploads.recover();
    assertThat(restarted.reader.spoolBytesInUse()).isEqualTo(note.length);
    StoredUpload transcribing = memory.registry.find(upload.id()).orElseThrow();

    int askers = 8;
    CountDownLatch ready = new CountDownLatch(askers);
    ExecutorService threads = Executors.newFixedThreadPool(askers);
    try {
      List<Future<UploadProgress>> answers =
          java.util.stream.IntStream.range(0, askers)
              .mapToObj(
                  i ->
                      threads.submit(
                          () -> {
                            ready.countDown();
                            ready.await();
                            return restarted.uploads.transcription(
                                ALPHA, transcribing, Duration.ZERO, "ask-" + i);
                          }))
              .toList();
      for (Future<UploadProgress> answer : answers) {
        assertThat(answer.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
            .isEqualTo(new UploadProgress.Running(null));
      }
    } finally {
      threads.shutdownNow();
    }

    assertThat(restarted.runQueued()).isEqualTo(1);
    assertThat(restarted.transcriptions).hasValue(1);
    assertThat(stateOf(upload)).isEqualTo(StoredUpload.State.DONE);
    assertThat(restarted.reader.spoolBytesInUse()).isZero();
    assertThat(spoolFiles()).isEmpty();
  }

  @Test
  void anOrphanWhoseBytesAreGoneEndsUnavailableAtTheRestart() throws Exception {
    StoredUpload upload = create(memory, null);
    endingOf(append(memory, upload, 0, note));
    for (Path file : spoolFiles()) {
      Files.delete(file);
    }

    UploadsOnMemory restarted = memory.restarted();
    restarted.uploads.recover();

    assertThat(stateOf(upload)).isEqualTo(StoredUpload.State.FAILED);
    assertThat(progressOf(restarted, memory.registry.find(upload.id()).orElseThrow()))
        .isInstanceOfSatisfying(
            UploadProgress.Ended.class,
            ended ->
                assertThat(((UploadEnding.Failed) ended.ending()).refused().problem())
                    .isEqualTo(Problem.SERVER_UNAVAILABLE));
    assertThat(restarted.reader.spoolBytesInUse()).isZero();
  }

  @Test
  void anUploadWithSettingsNoPostCouldHaveIsNeverCreated() {
    UploadCreation creation =
        memory.uploads.create(
            ALPHA, UploadProtocol.TUS, note.length, Map.of("model", "gpt-9"), null, null);

    assertThat(creation)
        .isInstanceOfSatisfying(
            UploadCreation.Refused.class,
            refused -> assertThat(refused.refusal()).isInstanceOf(NoteRefusal.NotOffered.class));
    assertThat(memory.reader.spoolBytesInUse()).isZero();
  }

  @Test
  void anUploadWhoseSpoolLostBytesIsMovedBackToWhatIsLeftAndEndsWithTheRightHash()
      throws Exception {
    StoredUpload upload = create(memory, sha256(note));
    append(memory, upload, 0, Arrays.copyOfRange(note, 0, 5000));
    Path file = spoolFiles().get(0);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(2000);
    }

    UploadAppend refused =
        append(
            memory,
            upload.withOffset(5000, note.length),
            5000,
            Arrays.copyOfRange(note, 5000, 6000));
    UploadAppend rest =
        append(
            memory,
            upload.withOffset(2000, note.length),
            2000,
            Arrays.copyOfRange(note, 2000, note.length));

    assertThat(refused).isEqualTo(new UploadAppend.WrongOffset(2000));
    CompletableFuture<UploadEnding> ending = endingOf(rest);
    memory.runQueued();
    assertThat(ending.get()).isInstanceOf(UploadEnding.Transcribed.class);
    assertThat(memory.transcriptions).hasValue(1);
  }

  @Test
  void aTerminationWhileTheNoteIsTranscribedLeavesItsFileToTheWorkWhichGivesTheBudgetBackOnce()
      throws Exception {
    StoredUpload upload = create(memory, null);
    CompletableFuture<UploadEnding> ending = endingOf(append(memory, upload, 0, note));

    assertThat(memory.uploads.terminate(memory.registry.find(upload.id()).orElseThrow()))
        .isEqualTo(UploadTermination.DELETED);

    assertThat(spoolFiles()).hasSize(1);
    assertThat(memory.reader.spoolBytesInUse()).isEqualTo(note.length);
    memory.runQueued();
    assertThat(ending.get()).isInstanceOf(UploadEnding.Transcribed.class);
    assertThat(spoolFiles()).isEmpty();
    assertThat(memory.reader.spoolBytesInUse()).isZero();
  }

  @Test
  void anOrphanNobodyAskedForIsSweptWithItsBytes() throws Exception {
    StoredUpload upload = create(memory, null);
    endingOf(append(memory, upload, 0, note));
    UploadsOnMemory restarted = memory.restarted();
    restarted.uploads.recover();

    memory.clock.advance(UploadsOnMemory.TTL);

    assertThat(restarted.uploads.sweep()).isEqualTo(1);
    assertThat(spoolFiles()).isEmpty();
    assertThat(restarted.reader.spoolBytesInUse()).isZero();
    assertThat(restarted.runQueued()).isZero();
  }

  @Test
  void aNoteWhoseTranscriptionCannotStartGivesItsSpoolBackAndDoesNotStayOpen() throws Exception {
    StoredUpload upload = create(memory, null);
    memory.registry.failStartingTranscriptions();

    UploadAppend last = append(memory, upload, 0, note);

    assertThat(endingOf(last).getNow(null)).isEqualTo(endingOf(progressOf(memory, upload)));
    assertThat(memory.reader.spoolBytesInUse()).isZero();
    assertThat(spoolFiles()).isEmpty();
    assertThat(stateOf(upload)).isEqualTo(StoredUpload.State.FAILED);
    assertThat(problemOf(memory, upload)).isEqualTo(Problem.SERVER_UNAVAILABLE);
  }

  @Test
  void aNoteTheWorkRefusesToRunEndsInsteadOfStayingTranscribing() throws Exception {
    UploadsOnMemory stopping =
        new UploadsOnMemory(
            spool,
            LOCK_WAIT,
            task -> {
              throw new RejectedExecutionException("the gateway is stopping");
            });
    StoredUpload upload = create(stopping, null);

    UploadAppend last = append(stopping, upload, 0, note);

    assertThat(endingOf(last).getNow(null)).isEqualTo(endingOf(progressOf(stopping, upload)));
    assertThat(stopping.registry.find(upload.id()).orElseThrow().state())
        .isEqualTo(StoredUpload.State.FAILED);
    assertThat(problemOf(stopping, upload)).isEqualTo(Problem.SERVER_UNAVAILABLE);
    assertThat(stopping.reader.spoolBytesInUse()).isZero();
    assertThat(spoolFiles()).isEmpty();
  }

  private StoredUpload create(UploadsOnMemory on, @Nullable String sha256) {
    UploadCreation creation =
        on.uploads.create(
            ALPHA, UploadProtocol.TUS, note.length, Map.of("language", "en"), sha256, null);
    assertThat(creation).isInstanceOf(UploadCreation.Created.class);
    return ((UploadCreation.Created) creation).upload();
  }

  private static UploadAppend append(
      UploadsOnMemory on, StoredUpload upload, long offset, byte[] bytes) throws IOException {
    return on.uploads.append(
        ALPHA, upload, offset, bytes.length, new ByteArrayInputStream(bytes), false, "test");
  }

  private static CompletableFuture<UploadEnding> endingOf(UploadAppend append) {
    assertThat(append).isInstanceOf(UploadAppend.Appended.class);
    CompletableFuture<UploadEnding> ending = ((UploadAppend.Appended) append).ending();
    assertThat(ending).as("the append brought the last byte").isNotNull();
    return java.util.Objects.requireNonNull(ending);
  }

  private static UploadEnding endingOf(UploadProgress progress) {
    assertThat(progress).isInstanceOf(UploadProgress.Ended.class);
    return ((UploadProgress.Ended) progress).ending();
  }

  private StoredUpload.State stateOf(StoredUpload upload) {
    return memory.registry.find(upload.id()).orElseThrow().state();
  }

  private static UploadProgress progressOf(UploadsOnMemory on, StoredUpload upload)
      throws InterruptedException {
    StoredUpload now = on.registry.find(upload.id()).orElseThrow();
    return on.uploads.transcription(ALPHA, now, Duration.ZERO, "ask");
  }

  private static Problem problemOf(UploadsOnMemory on, StoredUpload upload)
      throws InterruptedException {
    UploadProgress progress = progressOf(on, upload);
    assertThat(progress).isInstanceOf(UploadProgress.Ended.class);
    UploadEnding ending = ((UploadProgress.Ended) progress).ending();
    assertThat(ending).isInstanceOf(UploadEnding.Failed.class);
    WorkResult.Refused refused = ((UploadEnding.Failed) ending).refused();
    return refused.problem();
  }

  private List<Path> spoolFiles() throws IOException {
    Path folder = spool.resolve("resumable");
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (var files = Files.list(folder)) {
      return files.toList();
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** A body that sends its bytes, then stalls until the test lets it end. */
  private static final class StalledBody extends InputStream {
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);
    private final InputStream bytes;

    StalledBody(byte[] bytes) {
      this.bytes = new ByteArrayInputStream(bytes);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = bytes.read(buffer, offset, length);
      if (n != -1) {
        return n;
      }
      stalled.countDown();
      try {
        resume.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      return -1;
    }
  }
}
