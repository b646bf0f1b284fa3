package dev.bolo.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The Moonshine tiny English model (MIT licence; its weights ship in the npm package {@code
 * @moonshine-ai/moonshine-js}) under onnxruntime-node: {@code bolo-bench/accuracy/moonshine/
 * recognize.mjs}, set up by its {@code setup.sh}. One Node process per core, each reading a path
 * and answering a line; a clip is sent to whichever is free.
 */
final class MoonshineProcess implements ClipRecognizer {

  private static final Path SCRIPT =
      Path.of("bolo-bench", "accuracy", "moonshine", "recognize.mjs");

  private final List<Worker> workers = new ArrayList<>();
  private final BlockingQueue<Worker> idle;

  MoonshineProcess(int processes) throws IOException {
    if (!Files.isDirectory(SCRIPT.resolveSibling("model"))) {
      throw new IOException("run bolo-bench/accuracy/moonshine/setup.sh first");
    }
    idle = new ArrayBlockingQueue<>(processes);
    for (int i = 0; i < processes; i++) {
      Worker worker =
          new Worker(
              new ProcessBuilder("node", SCRIPT.toString())
                  .redirectError(ProcessBuilder.Redirect.INHERIT)
                  .start());
      workers.add(worker);
      idle.add(worker);
    }
  }

  @Override
  public String transcribe(Clip clip) {
    Worker worker;
    try {
      worker = idle.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    try {
      worker.in.write(clip.wav().toAbsolutePath() + "\n");
      worker.in.flush();
      String line = worker.out.readLine();
      if (line == null) {
        throw new IOException("the Moonshine process ended");
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      idle.add(worker);
    }
  }

  @Override
  public void close() {
    for (Worker worker : workers) {
      worker.process.destroy();
    }
  }

  private static final class Worker {
    final Process process;
    final BufferedWriter in;
    final BufferedReader out;

    Worker(Process process) {
      this.process = process;
      this.in =
          new BufferedWriter(
              new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
      this.out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }
  }
}
