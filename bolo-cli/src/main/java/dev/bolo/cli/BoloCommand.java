package dev.bolo.cli;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top of the command tree; {@code bolo} alone prints its help. */
@Command(
    name = "bolo",
    mixinStandardHelpOptions = true,
    version = "Bolo 0.1.0",
    description = "Bolo: a speech-to-text gateway that makes resending free and safe.",
    footer = {"%nThe commands, the addresses they use and these codes: docs/cli.md"},
    subcommands = {
      DemoCommand.class,
      ServeCommand.class,
      TranscribeCommand.class,
      JobsCommand.class,
      DevicesCommand.class,
      UsageCommand.class
    })
final class BoloCommand implements Runnable {

  @Spec private @Nullable CommandSpec spec;

  @Override
  public void run() {
    // A bare "bolo" is a question about usage, not a mistake.
    CommandSpec spec = Objects.requireNonNull(this.spec, "picocli injects the spec");
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
