package dev.bolo.cli;

import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;

/**
 * A picocli text table whose wrapping columns break lines at spaces only. Picocli breaks where
 * {@link java.text.BreakIterator#getLineInstance()} allows, which is also after {@code .}, {@code
 * /}, {@code :} and {@code -}: a path, a URL or an option name in a description was cut in two
 * ({@code (default .} / {@code /bolo-data)}). A word longer than its column is still cut, as
 * picocli does. Not thread safe, like the table it extends.
 */
final class WordTable extends TextTable {

  WordTable(ColorScheme colorScheme, Column... columns) {
    super(colorScheme, columns);
  }

  /** A table with {@code table}'s columns and continuation indent, and no rows. */
  static WordTable like(TextTable table, ColorScheme colorScheme) {
    Column[] columns = table.columns().clone();
    for (int i = 0; i < columns.length; i++) {
      Column column = columns[i];
      columns[i] = new Column(column.width, column.indent, column.overflow);
    }
    WordTable words = new WordTable(colorScheme, columns);
    words.indentWrappedLines = table.indentWrappedLines;
    return words;
  }

  @Override
  public Cell putValue(int row, int col, Text value) {
    Column column = columns()[col];
    String plain = value.plainString();
    if (column.overflow != Column.Overflow.WRAP || plain.isEmpty()) {
      return super.putValue(row, col, value);
    }
    int line = row;
    int start = 0;
    int indent = 0;
    while (true) {
      // The room picocli leaves on this line; less one, as its own copy needs a spare column.
      int room = Math.max(1, column.width - column.indent - indent - 1);
      int end = lineEnd(plain, start, room);
      Text piece = value.substring(start, end);
      Cell cell =
          super.putValue(
              line,
              col,
              indent == 0 ? piece : value.substring(0, 0).concat(" ".repeat(indent)).concat(piece));
      start = nextWord(plain, end);
      if (start >= plain.length()) {
        return cell;
      }
      addEmptyRow();
      line = rowCount() - 1;
      indent = indentWrappedLines;
    }
  }

  /** Where the line from {@code start} ends: at the last space that fits, else at {@code room}. */
  static int lineEnd(String text, int start, int room) {
    int end = trimmedEnd(text, start, text.length());
    if (end - start <= room) {
      return end;
    }
    int space = text.lastIndexOf(' ', start + room);
    // A word longer than the whole line is cut where the line ends.
    return space > start ? trimmedEnd(text, start, space) : start + room;
  }

  private static int trimmedEnd(String text, int start, int end) {
    while (end > start && text.charAt(end - 1) == ' ') {
      end--;
    }
    return end;
  }

  private static int nextWord(String text, int from) {
    while (from < text.length() && text.charAt(from) == ' ') {
      from++;
    }
    return from;
  }
}
