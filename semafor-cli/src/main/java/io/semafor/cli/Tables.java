package io.semafor.cli;

import java.util.List;

/**
 * Text tables as {@code ipcs} and {@code ps} print them: a header row, columns as wide as their
 * widest cell and two spaces apart, numbers right-aligned, text left-aligned, no trailing blanks.
 */
final class Tables {
  private Tables() {}

  /** {@code rows}, the first being the header, as lines of text. */
  static String format(List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    boolean[] numeric = new boolean[columns];
    for (int c = 0; c < columns; c++) {
      numeric[c] = rows.size() > 1;
      for (int r = 0; r < rows.size(); r++) {
        String cell = rows.get(r)[c];
        width[c] = Math.max(width[c], cell.length());
        if (r > 0 && !cell.isEmpty() && !cell.equals("-") && !isNumber(cell)) {
          numeric[c] = false;
        }
      }
    }
    StringBuilder b = new StringBuilder();
    for (String[] row : rows) {
      if (b.length() > 0) {
        b.append(System.lineSeparator());
      }
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        if (c > 0) {
          line.append("  ");
        }
        String pad = " ".repeat(width[c] - row[c].length());
        line.append(numeric[c] ? pad + row[c] : row[c] + pad);
      }
      b.append(line.toString().stripTrailing());
    }
    return b.toString();
  }

  /**
   * Digits, maybe signed, maybe with a decimal part and a unit or a mark after them: 12, -3,
   * 1.500s, 7*. Not an address that starts with digits ({@code 127.0.0.1:7401}): that is text.
   */
  private static boolean isNumber(String cell) {
    return NUMBER.matcher(cell).matches();
  }

  private static final java.util.regex.Pattern NUMBER =
      java.util.regex.Pattern.compile("-?\\d+(\\.\\d+)?[a-zA-Z%*]*");
}
