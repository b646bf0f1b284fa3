package dev.bolo.server.engine.offline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bolo.audio.AudioContainer;
import dev.bolo.server.engine.EngineRequest;
import dev.bolo.server.engine.EngineResult;
import dev.bolo.server.engine.Renditions;
import dev.bolo.server.engine.Settings;
import dev.bolo.server.engine.Transcript;
import dev.bolo.server.health.Readiness;
import dev.bolo.server.upload.AudioContent;
import dev.bolo.testkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The engine's pool, admission and formats, with hand-written recognisers instead of a model's. */
class LocalEngineTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final byte[] NOTE = Wavs.pcm(16_000, 16, Wavs.tone(16_000, 1, 440, 0.5, 2.0));

  /** The note's length as the engine decodes it, which it reports with every transcript. */
  private static final OptionalLong NOTE_DECODED_MS = OptionalLong.of(2_000);

  private final List<LocalEngine> engines = new ArrayList<>();

  @org.junit.jupiter.api.BeforeAll
  static void loadTheDecoderOnce() throws Exception {
    // FFmpeg's libraries load on the first note: not inside a test that times a note.
    try (var decoder =
        dev.bolo.decode.PcmDecoder.open(dev.bolo.audio.SeekableSource.of(NOTE), 16_000)) {
      assertThat(decoder.read(new float[16], 0, 16)).isPositive();
    }
  }

  @AfterEach
  void closeEngines() {
    engines.forEach(LocalEngine::close);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "aac-moov-at-end.m4a",
        "aac-fragmented.m4a",
        "aac-adts.aac",
        "opus-no-duration.webm",
        "opus.ogg",
        "vorbis.ogg",
        "vbr-xing-44k.mp3",
        "flac-8k.flac",
        "pcm24-extensible-8k.wav",
        "pcm16-stereo-22k.wav"
      })
  void everyContainerAPhoneRecordsIsDecodedForTheRecognizer(String file) throws Exception {
    List<Integer> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
    LocalEngine engine =
        loaded(
            1,
            0,
            () ->
                new FakeRecognizer() {
                  @Override
                  public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
                    heard.add(Wavs.count(samples));
                    return super.recognize(samples, stop);
                  }
                });
    byte[] note = Files.readAllBytes(Path.of("target/test-classes/audio", file));

    EngineResult result = engine.transcribe(OfflineNote.of(note).request());

    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    // The fixtures are 1.1 to 3.6 s of speech: at least a second of it reached the recogniser.
    assertThat(heard.stream().mapToInt(Integer::intValue).sum()).isGreaterThan(16_000);
  }

  @Test
  void bytesThatAreNotAudioAreInvalidAudioNotAnEngineFailure() throws Exception {
    LocalEngine engine = loaded(1, 0, FakeRecognizer::new);
    byte[] mp3 = "ID3\u0004 not really an mp3".getBytes(StandardCharsets.ISO_8859_1);

    EngineResult result = engine.transcribe(OfflineNote.of(mp3).request());

    assertThat(result)
        .isInstanceOfSatisfying(
            EngineResult.InvalidAudio.class, r -> assertThat(r.message()).isNotBlank());
  }

  @Test
  void aLanguageOtherThanEnglishIsRejected() throws Exception {
    LocalEngine engine = loaded(1, 0, FakeRecognizer::new);

    EngineResult french =
        engine.transcribe(
            OfflineNote.of(NOTE).request(OfflineNote.settings("fr", "json", List.of()), WAIT));
    EngineResult british =
        engine.transcribe(
            OfflineNote.of(NOTE).request(OfflineNote.settings("en-GB", "json", List.of()), WAIT));

    assertThat(french)
        .isInstanceOfSatisfying(
            EngineResult.Rejected.class,
            r -> assertThat(r.message()).contains("English only", "fr"));
    assertThat(british).isInstanceOf(EngineResult.Transcribed.class);
  }

  @Test
  void aWavOfAnUnknownEncodingIsInvalidAudio() throws Exception {
    LocalEngine engine = loaded(1, 0, FakeRecognizer::new);
    byte[] wav = NOTE.clone();
    wav[20] = 0x55;
    wav[21] = 0x55;

    EngineResult result =
        engine.transcribe(OfflineNote.labelled(wav, AudioContainer.WAV).request());

    assertThat(result).isInstanceOf(EngineResult.InvalidAudio.class);
  }

  @Test
  void whenEveryRecognizerIsBusyAndNothingMayQueueTheEngineAnswersUnavailable() throws Exception {
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    LocalEngine engine = loaded(2, 0, () -> new FakeRecognizer(started, release));
    List<CompletableFuture<EngineResult>> running =
        List.of(inBackground(engine), inBackground(engine));
    assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    EngineResult third = engine.transcribe(OfflineNote.of(NOTE).request());

    assertThat(third)
        .isInstanceOfSatisfying(
            EngineResult.Unavailable.class,
            r -> {
              assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(5));
              assertThat(r.message()).contains("busy");
            });
    release.countDown();
    for (CompletableFuture<EngineResult> note : running) {
      assertThat(note.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(EngineResult.Transcribed.class);
    }
  }

  @Test
  void notesWaitInTheShortQueueAndOnlyBeyondItAreTurnedAway() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    LocalEngine engine = loaded(1, 1, () -> new FakeRecognizer(started, release));
    CompletableFuture<EngineResult> first = inBackground(engine);
    assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    CompletableFuture<EngineResult> queued = inBackground(engine);
    awaitQueued(engine, 1);

    EngineResult third = engine.transcribe(OfflineNote.of(NOTE).request());

    assertThat(third).isInstanceOf(EngineResult.Unavailable.class);
    release.countDown();
    assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(EngineResult.Transcribed.class);
    assertThat(queued.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(EngineResult.Transcribed.class);
  }

  @Test
  void aNoteThatOutlivesItsTimeoutTimesOutAndFreesItsRecognizer() throws Exception {
    CountDownLatch spinning = new CountDownLatch(1);
    byte[] slowNote = Wavs.pcm(16_000, 16, Wavs.tone(16_000, 1, 440, 0.5, 3.0));
    // One queue slot: the next note waits there until the abandoned one has let go.
    LocalEngine engine =
        loaded(
            1,
            1,
            () ->
                new FakeRecognizer() {
                  @Override
                  public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
                    // The three-second note runs until the engine gives up on it.
                    if (Wavs.count(samples) > 40_000) {
                      spinning.countDown();
                      while (!stop.getAsBoolean()) {
                        Thread.onSpinWait();
                      }
                    }
                    return super.recognize(samples, stop);
                  }
                });

    EngineResult slow =
        engine.transcribe(
            OfflineNote.of(slowNote)
                .request(OfflineNote.settings("", "json", List.of()), Duration.ofSeconds(2)));
    EngineResult next = engine.transcribe(OfflineNote.of(NOTE).request());

    assertThat(spinning.getCount()).as("the slow note reached its recognizer").isZero();
    assertThat(slow).isInstanceOf(EngineResult.TimedOut.class);
    assertThat(next).isInstanceOf(EngineResult.Transcribed.class);
  }

  @Test
  void aRecognizerThatThrowsFailsOnlyItsNoteWhichSaysSoAndIsReplaced() throws Exception {
    AtomicInteger made = new AtomicInteger();
    LocalEngine engine =
        loaded(
            1,
            0,
            () ->
                made.incrementAndGet() == 1
                    ? throwing(new IllegalStateException("search stuck"))
                    : new FakeRecognizer());

    assertThat(engine.transcribe(OfflineNote.of(NOTE).request()))
        .isInstanceOfSatisfying(
            EngineResult.Failed.class,
            r -> assertThat(r.message()).contains("IllegalStateException").doesNotContain("stuck"));
    EngineResult next = engine.transcribe(OfflineNote.of(NOTE).request());

    assertThat(next).isInstanceOf(EngineResult.Transcribed.class);
    assertThat(made).hasValue(2);
  }

  @Test
  void anOutOfMemoryErrorFailsOnlyItsNoteWithAnAnswerThatSaysSoAndTheNextNoteIsTranscribed()
      throws Exception {
    AtomicInteger made = new AtomicInteger();
    LocalEngine engine =
        loaded(
            1,
            0,
            () ->
                made.incrementAndGet() == 1
                    ? throwing(new OutOfMemoryError("Java heap space"))
                    : new FakeRecognizer());

    assertThat(engine.transcribe(OfflineNote.of(NOTE).request()))
        .isInstanceOfSatisfying(
            EngineResult.Failed.class, r -> assertThat(r.message()).contains("out of memory"));
    EngineResult next = engine.transcribe(OfflineNote.of(NOTE).request());

    assertThat(next).isInstanceOf(EngineResult.Transcribed.class);
    assertThat(engine.readiness().state()).isEqualTo(Readiness.State.READY);
  }

  @Test
  void aRecognizerThatCannotBeReplacedAtOnceIsBuiltForTheNextNoteInstead() throws Exception {
    AtomicInteger made = new AtomicInteger();
    LocalEngine engine =
        loaded(
            1,
            0,
            () ->
                switch (made.incrementAndGet()) {
                  case 1 -> throwing(new OutOfMemoryError("Java heap space"));
                  // The heap is still full when the broken recogniser is replaced.
                  case 2 -> throw new OutOfMemoryError("Java heap space");
                  default -> new FakeRecognizer();
                });

    assertThat(engine.transcribe(OfflineNote.of(NOTE).request()))
        .isInstanceOf(EngineResult.Failed.class);
    assertThat(made).hasValue(2);
    // Its one recogniser could not be rebuilt: the engine cannot serve until a note builds it.
    assertThat(engine.readiness().state()).isEqualTo(Readiness.State.DOWN);
    EngineResult next = engine.transcribe(OfflineNote.of(NOTE).request());

    assertThat(next).isInstanceOf(EngineResult.Transcribed.class);
    assertThat(made).hasValue(3);
    assertThat(engine.readiness().state()).isEqualTo(Readiness.State.READY);
  }

  @Test
  void aNoteAbandonedAtItsDeadlineReadsOnAfterItsFileIsDeletedUntilItSeesTheStop(
      @TempDir Path folder) throws Exception {
    Path file = folder.resolve("upload.audio");
    Files.write(file, NOTE);
    CountDownLatch timedOut = new CountDownLatch(1);
    CompletableFuture<String> seen = new CompletableFuture<>();
    LocalEngine engine =
        loaded(
            1,
            0,
            () ->
                new FakeRecognizer() {
                  @Override
                  public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
                    awaitUninterruptibly(timedOut);
                    int read = samples.read(new short[1600], 0, 1600);
                    seen.complete("read " + read + ", stop " + stop.getAsBoolean());
                    return List.of();
                  }
                });

    // Three seconds: time to decode the note and hand its piece to the recogniser on a busy
    // machine; the recogniser then holds it past the deadline.
    EngineResult result =
        engine.transcribe(
            new EngineRequest(
                new FileAudio(file),
                OfflineNote.settings("", "json", List.of()),
                Duration.ofSeconds(3),
                "test"));
    // As the request's end does to a spooled upload.
    Files.delete(file);
    timedOut.countDown();

    assertThat(result).isInstanceOf(EngineResult.TimedOut.class);
    assertThat(seen.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("read 1600, stop true");
  }

  @Test
  void whileTheModelLoadsTheEngineIsNotReadyAndAnswersUnavailable() throws Exception {
    CountDownLatch loading = new CountDownLatch(1);
    LocalEngine engine =
        engine(
            1,
            0,
            () -> {
              awaitUninterruptibly(loading);
              return FakeRecognizer::new;
            });

    assertThat(engine.readiness().state()).isEqualTo(Readiness.State.DOWN);
    assertThat(engine.readiness().detail()).contains("loading");
    assertThat(engine.transcribe(OfflineNote.of(NOTE).request()))
        .isInstanceOfSatisfying(
            EngineResult.Unavailable.class,
            r -> assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(5)));

    loading.countDown();
    assertThat(engine.awaitLoaded(WAIT)).isTrue();
    assertThat(engine.readiness().state()).isEqualTo(Readiness.State.READY);
    assertThat(engine.transcribe(OfflineNote.of(NOTE).request()))
        .isInstanceOf(EngineResult.Transcribed.class);
  }

  @Test
  void aModelThatFailsToLoadIsReportedByReadinessAndEveryNote() throws Exception {
    LocalEngine engine =
        engine(
            1,
            0,
            () -> {
              throw new IllegalStateException("model resource missing");
            });

    assertThat(engine.awaitLoaded(WAIT)).isFalse();
    assertThat(engine.readiness().state()).isEqualTo(Readiness.State.DOWN);
    // The cause is logged; neither a probe nor a client is told exception texts.
    assertThat(engine.readiness().detail())
        .contains("failed to load")
        .doesNotContain("model resource missing", "Exception");
    assertThat(engine.transcribe(OfflineNote.of(NOTE).request()))
        .isInstanceOfSatisfying(
            EngineResult.Failed.class,
            r ->
                assertThat(r.message())
                    .contains("failed to load")
                    .doesNotContain("model resource missing", "Exception"));
  }

  @Test
  void textAndJsonFormatsGiveTheWordsOfEveryUtteranceAndTheDecodedLength() throws Exception {
    LocalEngine engine = loaded(1, 0, FakeRecognizer::new);

    EngineResult result =
        engine.transcribe(
            OfflineNote.of(NOTE).request(OfflineNote.settings("", "text", List.of()), WAIT));

    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    EngineResult.Transcribed transcribed = (EngineResult.Transcribed) result;
    assertThat(transcribed.text()).isEqualTo("call the dentist at four");
    assertThat(transcribed.reportedDurationMs()).isEqualTo(NOTE_DECODED_MS);
  }

  @Test
  void srtAndVttCuesFollowTheUtterances() throws Exception {
    LocalEngine engine = loaded(1, 0, FakeRecognizer::new);
    Settings srtAsked = OfflineNote.settings("", "srt", List.of());
    Settings vttAsked = OfflineNote.settings("", "vtt", List.of());

    // The engine answers its timed transcript; the documents are rendered from it.
    String srt =
        Renditions.openAi(
                transcriptOf(engine.transcribe(OfflineNote.of(NOTE).request(srtAsked, WAIT))),
                srtAsked,
                null,
                0)
            .body();
    String vtt =
        Renditions.openAi(
                transcriptOf(engine.transcribe(OfflineNote.of(NOTE).request(vttAsked, WAIT))),
                vttAsked,
                null,
                0)
            .body();

    String expectedSrt =
        "1\n00:00:00,120 --> 00:00:01,020\ncall the dentist\n\n"
            + "2\n00:00:01,500 --> 00:00:01,980\nat four\n\n";
    assertThat(srt).isEqualTo(expectedSrt);
    String expectedVtt =
        "WEBVTT\n\n00:00:00.120 --> 00:00:01.020\ncall the dentist\n\n"
            + "00:00:01.500 --> 00:00:01.980\nat four\n\n";
    assertThat(vtt).isEqualTo(expectedVtt);
  }

  private static Transcript transcriptOf(EngineResult result) {
    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    return ((EngineResult.Transcribed) result).transcript();
  }

  @Test
  void verboseJsonHasSegmentsAndWordsAsAsked() throws Exception {
    LocalEngine engine = loaded(1, 0, FakeRecognizer::new);
    Settings asked = OfflineNote.settings("", "verbose_json", List.of("word", "segment"));

    EngineResult result = engine.transcribe(OfflineNote.of(NOTE).request(asked, WAIT));

    assertThat(result).isInstanceOf(EngineResult.Transcribed.class);
    EngineResult.Transcribed transcribed = (EngineResult.Transcribed) result;
    assertThat(transcribed.text()).isEqualTo("call the dentist at four");
    assertThat(transcribed.reportedDurationMs()).isEqualTo(NOTE_DECODED_MS);
    JsonNode body =
        new ObjectMapper().readTree(Renditions.verboseJson(transcribed.transcript(), asked));
    assertThat(body.get("duration").asDouble()).isEqualTo(2.0);
    assertThat(body.get("segments")).hasSize(2);
    assertThat(body.get("segments").get(1).get("start").asDouble()).isEqualTo(1.5);
    assertThat(body.get("segments").get(1).get("text").asText()).isEqualTo("at four");
    assertThat(body.get("words")).hasSize(5);
    assertThat(body.get("words").get(2).get("word").asText()).isEqualTo("dentist");
    assertThat(body.get("words").get(2).get("end").asDouble()).isEqualTo(1.02);
  }

  @Test
  void closingStopsThePiecesRunningAndFreesTheModelOnlyOnceNoneRuns() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger runningWhenFreed = new AtomicInteger(-1);
    NoteRecognizer.Factory model =
        new NoteRecognizer.Factory() {
          @Override
          public NoteRecognizer newRecognizer() {
            return new FakeRecognizer(new CountDownLatch(0), new CountDownLatch(0)) {
              @Override
              public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
                running.incrementAndGet();
                started.countDown();
                // A model's call, which only its stop poll can end, never an interrupt.
                while (!stop.getAsBoolean()) {
                  Thread.onSpinWait();
                }
                running.decrementAndGet();
                return List.of();
              }
            };
          }

          @Override
          public void close() {
            runningWhenFreed.set(running.get());
          }
        };
    LocalEngine engine = loaded(1, 0, model);
    CompletableFuture<EngineResult> note = inBackground(engine);
    assertThat(started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    engine.close();

    assertThat(runningWhenFreed.get()).as("pieces running when the model was freed").isZero();
    assertThat(note.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isInstanceOf(EngineResult.Failure.class);
  }

  @Test
  void closingWhileTheModelLoadsWaitsForTheLoadAndFreesWhatItLoaded() throws Exception {
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch finishLoad = new CountDownLatch(1);
    AtomicInteger freed = new AtomicInteger();
    NoteRecognizer.Factory model =
        new NoteRecognizer.Factory() {
          @Override
          public NoteRecognizer newRecognizer() {
            return new FakeRecognizer(new CountDownLatch(0), new CountDownLatch(0));
          }

          @Override
          public void close() {
            freed.incrementAndGet();
          }
        };
    LocalEngine engine =
        engine(
            1,
            0,
            () -> {
              loading.countDown();
              try {
                finishLoad.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return model;
            });
    assertThat(loading.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    Thread closing = Thread.ofPlatform().start(engine::close);
    // Either close returned at once, or it waits (for the load) before the load may end.
    Await.until(
        WAIT,
        "close to return or to wait",
        () -> !closing.isAlive() || closing.getState() == Thread.State.TIMED_WAITING);

    finishLoad.countDown();
    closing.join(WAIT.toMillis());
    assertThat(closing.isAlive()).as("close still running").isFalse();

    assertThat(freed.get()).as("times the model loaded during close was freed").isEqualTo(1);
  }

  private LocalEngine loaded(int recognizers, int queue, NoteRecognizer.Factory factory)
      throws InterruptedException {
    LocalEngine engine = engine(recognizers, queue, () -> factory);
    assertThat(engine.awaitLoaded(WAIT)).isTrue();
    return engine;
  }

  private LocalEngine engine(int recognizers, int queue, Supplier<NoteRecognizer.Factory> loader) {
    OfflineConfig config = new OfflineConfig(recognizers, queue, Duration.ofSeconds(5));
    LocalEngine engine = new LocalEngine(config, loader, System::nanoTime);
    engines.add(engine);
    return engine;
  }

  private static CompletableFuture<EngineResult> inBackground(LocalEngine engine) {
    CompletableFuture<EngineResult> result = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(() -> result.complete(engine.transcribe(OfflineNote.of(NOTE).request())));
    return result;
  }

  private static void awaitQueued(LocalEngine engine, int count) throws InterruptedException {
    Await.until(
        WAIT,
        () -> engine.queuedPieces() >= count,
        () -> engine.queuedPieces() + " notes queued, not " + count);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static NoteRecognizer throwing(Throwable failure) {
    return new FakeRecognizer() {
      @Override
      public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
        if (failure instanceof Error error) {
          throw error;
        }
        throw (RuntimeException) failure;
      }
    };
  }

  /** A note spooled to a file, as a large upload is. */
  private record FileAudio(Path file) implements AudioContent {
    @Override
    public long size() {
      try {
        return Files.size(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public InputStream open() throws IOException {
      return Files.newInputStream(file);
    }

    @Override
    public AudioContainer container() {
      return AudioContainer.WAV;
    }

    @Override
    public String sha256() {
      return "0".repeat(64);
    }
  }

  /** Hears "call the dentist" and "at four" in every note, optionally holding it until released. */
  private static class FakeRecognizer implements NoteRecognizer {
    private final CountDownLatch started;
    private final CountDownLatch release;

    FakeRecognizer() {
      this(new CountDownLatch(0), new CountDownLatch(0));
    }

    FakeRecognizer(CountDownLatch started, CountDownLatch release) {
      this.started = started;
      this.release = release;
    }

    @Override
    public List<Utterance> recognize(NoteSamples samples, BooleanSupplier stop) {
      started.countDown();
      awaitUninterruptibly(release);
      return List.of(
          new Utterance(
              List.of(
                  new Utterance.TimedWord("call", 120, 400),
                  new Utterance.TimedWord("the", 400, 520),
                  new Utterance.TimedWord("dentist", 520, 1020))),
          new Utterance(
              List.of(
                  new Utterance.TimedWord("at", 1500, 1650),
                  new Utterance.TimedWord("four", 1650, 1980))));
    }

    @Override
    public void close() {}
  }
}
