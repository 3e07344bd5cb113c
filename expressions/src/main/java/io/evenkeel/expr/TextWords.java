package io.evenkeel.expr;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * The words of a full-text value under the title's analyzer. The shard servers index {@code title} with Lucene's
 * StandardAnalyzer; when the service itself must decide a {@code MATCH} (a row it scans), it uses the same analyzer,
 * so both paths agree on every row.
 */
public final class TextWords {
  private static final Analyzer ANALYZER = new StandardAnalyzer();

  private TextWords() {}

  public static Set<String> of(String text) {
    Set<String> words = new HashSet<>();
    try (TokenStream tokens = ANALYZER.tokenStream("title", text)) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken()) {
        words.add(term.toString());
      }
      tokens.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    }
    return words;
  }
}
