package io.evenkeel.schemas.table;

/**
 * How keyword values compare everywhere (shard sort and aggregates, the query service's merge and expressions): by
 * Unicode code point, as a binary collation does and as the index sorts them (UTF-8 bytes). {@link String#compareTo}
 * compares UTF-16 units instead, which puts characters beyond the BMP ("x😀") before U+E000..U+FFFF ("x～").
 */
public final class KeywordOrder {
  private KeywordOrder() {}

  public static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
