package dev.bolo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bolo.client.Attempt;
import dev.bolo.client.BoloClient;
import dev.bolo.client.Outcome;
import dev.bolo.client.TranscriptionListener;
import dev.bolo.client.TranscriptionOptions;
import dev.bolo.client.VoiceNote;
import dev.bolo.testkit.CuttingProxy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Large notes through the SDK and {@code bolo transcribe} to the real gateway's tus uploads, over a
 * loopback proxy that cuts connections mid-upload as a phone's link drops.
 */
class ResumableEndToEndTest {

  @RegisterExtension final GatewayExtension gateway = new GatewayExtension();
  @TempDir Path dir;

  /** About 1.3 MB: five times the SDK's resumable threshold. */
  private final VoiceNote note = VoiceNote.ofBytes(EndToEndTest.wav(40_000, 51), "long.wav");

  private final List<Long> resumedAt = new CopyOnWriteArrayList<>();
  private CuttingProxy proxy;

  @BeforeEach
  void startProxy() throws IOException {
    proxy = CuttingProxy.start(URI.create(gateway.baseUrl()).getPort());
  }

  @AfterEach
  void stopProxy() throws IOException {
    proxy.close();
  }

  private BoloClient.Builder throughProxy() {
    return gateway
        .client()
        .baseUrl("http://127.0.0.1:" + proxy.port())
        .listener(
            new TranscriptionListener() {
              @Override
              public void uploadResumed(Attempt attempt, long offset, long bytesTotal) {
                resumedAt.add(offset);
              }
            });
  }

  @Test
  void aCutMidUploadIsResumedFromTheGatewaysOffsetAndTheNoteTranscribedOnce() {
    proxy.cutAfter(500_000);

    Outcome outcome =
        throughProxy().build().transcribe(note, TranscriptionOptions.defaults().withLanguage("en"));

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).as("the resume is part of the first attempt").isEqualTo(1);
    Outcome.Transcribed transcribed = (Outcome.Transcribed) outcome;
    assertThat(transcribed.transcript().audioSha256()).isEqualTo(note.sha256());
    assertThat(resumedAt).hasSize(1).allMatch(offset -> offset > 0 && offset < 500_000);
    assertThat(proxy.upstreamBytes())
        .as("the note once, plus what the cut lost and the requests' headers")
        .isLessThan(note.size() * 11 / 10);
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void aLinkThatDropsTwiceCostsTwoResumesAndNoRepeatedBytes() {
    proxy.cutAfter(300_000, 400_000);

    Outcome outcome = throughProxy().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(resumedAt).hasSize(2).isSorted();
    assertThat(proxy.upstreamBytes()).isLessThan(note.size() * 11 / 10);
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void whenTheResumeItselfFailsTheNextAttemptLooksUpThenGoesOnWithTheSameUpload() {
    // The second connection (the HEAD after the cut) breaks at once: the attempt ends, the policy
    // starts the next one, which asks for the transcript and then resumes the upload.
    proxy.cutAfter(500_000, 10);

    Outcome outcome = throughProxy().build().transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(proxy.upstreamBytes())
        .as("the upload went on where the gateway was: the note was not sent again")
        .isLessThan(note.size() * 11 / 10);
    assertThat(gateway.calls()).isEqualTo(1);
  }

  @Test
  void withoutResumptionTheSameCutCostsTheWholeNoteAgain() {
    proxy.cutAfter(500_000);

    Outcome outcome =
        throughProxy()
            .resumableUploads(false)
            .build()
            .transcribe(note, TranscriptionOptions.defaults());

    assertThat(outcome).isInstanceOf(Outcome.Transcribed.class);
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(resumedAt).isEmpty();
    assertThat(proxy.upstreamBytes()).isGreaterThan(note.size() + 400_000);
  }

  @Test
  void transcribeShowsTheResumeAndPrintsTheTranscript() throws Exception {
    proxy.cutAfter(500_000);
    Path file = Files.write(dir.resolve("long.wav"), EndToEndTest.wav(40_000, 52));

    CommandRun run =
        CommandRun.of(
            new TranscribeCommand(),
            "--server",
            "http://127.0.0.1:" + proxy.port(),
            "--token",
            GatewayExtension.TOKEN,
            "--progress",
            file.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("note number 1");
    assertThat(run.err())
        .containsPattern("long\\.wav: attempt 1 of 4: link lost, resuming at byte \\d+ of 1280044")
        .contains(
            "long.wav: attempt 1 of 4: sent 1280044 of 1280044 bytes; waiting for the transcript");
    assertThat(proxy.upstreamBytes()).isLessThan(1280044L * 11 / 10);
  }
}
