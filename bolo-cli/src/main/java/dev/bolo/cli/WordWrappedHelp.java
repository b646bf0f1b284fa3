package dev.bolo.cli;

import java.util.IllegalFormatException;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.IHelpFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * picocli's usage help with every table in a {@link WordTable}: options, parameters, the command
 * list and the exit codes wrap at spaces only, at whatever width the terminal gives. The layout and
 * columns are picocli's own. One per rendering, as picocli makes them.
 */
final class WordWrappedHelp extends Help {

  /** Makes one for each command whose usage picocli renders. */
  static final IHelpFactory FACTORY = WordWrappedHelp::new;

  /** Space between a key (an exit code, a command) and its text, as picocli leaves it. */
  private static final int SPACING = 3;

  private static final int INDENT = 2;

  private WordWrappedHelp(CommandSpec spec, ColorScheme colorScheme) {
    super(spec, colorScheme);
  }

  @Override
  public Layout createDefaultLayout(
      List<OptionSpec> options, List<PositionalParamSpec> positionals, ColorScheme colorScheme) {
    Layout layout = super.createDefaultLayout(options, positionals, colorScheme);
    return new Layout(
        colorScheme,
        WordTable.like(layout.textTable(), colorScheme),
        layout.optionRenderer(),
        layout.parameterRenderer());
  }

  /** Key and value tables such as the exit codes: picocli's columns, wrapped at spaces. */
  @Override
  public TextTable createTextTable(Map<?, ?> map) {
    int keyWidth = Math.min(usageWidth() - SPACING - 1, longest(map.keySet())) + SPACING;
    WordTable table =
        new WordTable(
            colorScheme(),
            new Column(keyWidth, INDENT, Column.Overflow.SPAN),
            new Column(usageWidth() - keyWidth, INDENT, Column.Overflow.WRAP));
    map.forEach((key, value) -> table.addRowValues(String.valueOf(key), String.valueOf(value)));
    return table;
  }

  /** Each command's name and the first line of its header or description, wrapped at spaces. */
  @Override
  public String commandList(Map<String, Help> subcommands) {
    if (subcommands.isEmpty()) {
      return "";
    }
    int nameWidth = Math.min(longest(subcommands.keySet()), usageWidth() / 2) + INDENT;
    WordTable table =
        new WordTable(
            colorScheme(),
            new Column(nameWidth, INDENT, Column.Overflow.SPAN),
            new Column(usageWidth() - nameWidth, INDENT, Column.Overflow.WRAP));
    subcommands.forEach(
        (name, help) -> {
          UsageMessageSpec usage = help.commandSpec().usageMessage();
          String[] summary = usage.header().length > 0 ? usage.header() : usage.description();
          Text text = colorScheme().text(summary.length > 0 ? format(summary[0]) : "");
          table.addRowValues(help.commandNamesText(", "), text);
        });
    return table.toString();
  }

  /**
   * The synopsis: the command's name, then its options and parameters, continuation lines aligned
   * after the name as picocli aligns them; an option such as {@code [--[no-]progress]} stays whole.
   */
  @Override
  protected String insertSynopsisCommandName(int headingLength, Text details) {
    UsageMessageSpec usage = commandSpec().usageMessage();
    String name = commandSpec().qualifiedName();
    int indent = headingLength + name.length() + 1;
    if (indent > usage.synopsisAutoIndentThreshold() * usageWidth()) {
      indent = usage.synopsisIndent() < 0 ? headingLength : usage.synopsisIndent();
    }
    WordTable table =
        new WordTable(colorScheme(), new Column(usageWidth(), 0, Column.Overflow.WRAP));
    table.indentWrappedLines = indent;
    // Stands for "Usage: ", which picocli prints before this: the first line is that much shorter.
    Text heading = colorScheme().text("X".repeat(headingLength));
    table.addRowValues(heading.concat(colorScheme().commandText(name)).concat(details));
    return table.toString().substring(headingLength);
  }

  @Override
  public String header(Object... params) {
    return paragraphs(commandSpec().usageMessage().header(), params);
  }

  @Override
  public String description(Object... params) {
    return paragraphs(commandSpec().usageMessage().description(), params);
  }

  @Override
  public String footer(Object... params) {
    return paragraphs(commandSpec().usageMessage().footer(), params);
  }

  /** Lines of text across the whole width, each formatted as picocli does, wrapped at spaces. */
  private String paragraphs(String[] lines, Object... params) {
    WordTable table =
        new WordTable(colorScheme(), new Column(usageWidth(), 0, Column.Overflow.WRAP));
    table.indentWrappedLines = 0;
    for (String line : lines) {
      table.addRowValues(format(line, params));
    }
    return table.toString();
  }

  /** {@code %n} and the like replaced, as picocli does; a text that is no format stays as it is. */
  private static String format(String text, Object... params) {
    try {
      return String.format(text, params);
    } catch (IllegalFormatException e) {
      return text;
    }
  }

  /** The help's width in columns: the terminal's, or the command's setting. */
  private int usageWidth() {
    return commandSpec().usageMessage().width();
  }

  private static int longest(java.util.Collection<?> keys) {
    return keys.stream().mapToInt(key -> String.valueOf(key).length()).max().orElse(0);
  }
}
