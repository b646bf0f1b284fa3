package dev.bolo.cli;

import picocli.CommandLine.Command;

/** The top of the command tree. */
@Command(
    name = "bolo",
    mixinStandardHelpOptions = true,
    version = "Bolo 0.1.0",
    description = "Bolo: a speech-to-text gateway that makes resending free and safe.",
    subcommands = {
      DemoCommand.class,
      ServeCommand.class,
      TranscribeCommand.class,
      DevicesCommand.class,
      UsageCommand.class
    })
final class BoloCommand {}
