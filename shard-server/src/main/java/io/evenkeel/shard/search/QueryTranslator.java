package io.evenkeel.shard.search;

import io.evenkeel.schemas.shard.Bool;
import io.evenkeel.schemas.shard.CompositeRange;
import io.evenkeel.expr.ExpressionCodec;
import io.evenkeel.schemas.shard.Filter;
import io.evenkeel.schemas.shard.Range;
import io.evenkeel.schemas.shard.Term;
import io.evenkeel.schemas.shard.Terms;
import io.evenkeel.schemas.shard.AccessPath;
import io.evenkeel.schemas.shard.Value;
import io.evenkeel.schemas.table.Column;
import io.evenkeel.schemas.table.ColumnType;
import io.evenkeel.schemas.table.TransactionLogsTable;
import io.evenkeel.shard.index.IndexFields;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.QueryBuilder;
import org.apache.lucene.util.automaton.CharacterRunAutomaton;

/**
 * Turns a structured {@link Filter} into a Lucene query over the row layout of {@code RowDocuments}. Every problem
 * (unknown column, a value of the wrong type, a predicate the column cannot answer) is an {@link
 * IllegalArgumentException} that names it.
 *
 * <p>Semantics are Lucene's boolean ones: a row whose column is NULL matches no predicate on that column, and so
 * passes a {@code must_not} of it; SQL's NOT is the caller's to translate (add {@code exists}).
 *
 * <p>An attribute key's predicate ({@code attr.<key>}) reads the key's field in documents marked as indexed with the
 * key hot, and scans the stored rows of the other documents ({@link StoredAttributeQuery}): exact whichever list
 * each document was written under, and whatever list the caller believes the shards have.
 */
public final class QueryTranslator {
  private static final Analyzer ANALYZER = new StandardAnalyzer();

  private QueryTranslator() {}

  /** The query for live rows (never tombstones) that match {@code filter}, its row conditions in UTC. */
  public static Query liveRows(Filter filter) {
    return liveRows(filter, RowConditions.unbounded());
  }

  /** The query for live rows (never tombstones) that match {@code filter}, its row conditions in {@code rows}. */
  static Query liveRows(Filter filter, RowConditions rows) {
    Query matching = filter == null || filter.getKindCase() == Filter.KindCase.KIND_NOT_SET
        ? new MatchAllDocsQuery()
        : translate(filter, rows);
    return new BooleanQuery.Builder()
        .add(matching, BooleanClause.Occur.FILTER)
        .add(new TermQuery(new org.apache.lucene.index.Term(IndexFields.TOMBSTONE, "T")), BooleanClause.Occur.MUST_NOT)
        .build();
  }

  static Query translate(Filter filter, RowConditions rows) {
    String field = attributeField(filter);
    if (field == null) {
      return indexed(filter, rows);
    }
    String key = field.substring(IndexFields.ATTRIBUTE_PREFIX.length());
    Query marked = new TermQuery(new org.apache.lucene.index.Term(IndexFields.HOT_KEYS, key));
    Query fromIndex = new BooleanQuery.Builder()
        .add(indexed(filter, rows), BooleanClause.Occur.FILTER)
        .add(marked, BooleanClause.Occur.FILTER)
        .build();
    Query fromStoredRows = new BooleanQuery.Builder()
        .add(storedScan(key, filter), BooleanClause.Occur.FILTER)
        .add(marked, BooleanClause.Occur.MUST_NOT)
        .build();
    return new BooleanQuery.Builder()
        .add(fromIndex, BooleanClause.Occur.SHOULD)
        .add(fromStoredRows, BooleanClause.Occur.SHOULD)
        .setMinimumNumberShouldMatch(1)
        .build();
  }

  /** The attribute field ({@code attr.<key>}) a leaf filters on, or null. */
  private static String attributeField(Filter filter) {
    String field = switch (filter.getKindCase()) {
      case TERM -> filter.getTerm().getField();
      case TERMS -> filter.getTerms().getField();
      case RANGE -> filter.getRange().getField();
      case LIKE -> filter.getLike().getField();
      case EXISTS -> filter.getExists().getField();
      default -> null;
    };
    return field != null && field.startsWith(IndexFields.ATTRIBUTE_PREFIX) ? field : null;
  }

  /** The attribute leaf as a test of the value in a stored row, compared as the index compares its terms. */
  private static Query storedScan(String key, Filter filter) {
    Column column = indexed(IndexFields.ATTRIBUTE_PREFIX + key);
    switch (filter.getKindCase()) {
      case TERM -> {
        String text = FieldValues.keyword(column, filter.getTerm().getValue());
        return new StoredAttributeQuery(key, "= " + quote(text), text::equals);
      }
      case TERMS -> {
        Set<String> values = new HashSet<>();
        for (Value value : filter.getTerms().getValuesList()) {
          values.add(FieldValues.keyword(column, value));
        }
        return new StoredAttributeQuery(key, "IN (" + values.stream().sorted().map(QueryTranslator::quote)
            .collect(Collectors.joining(", ")) + ")", values::contains);
      }
      case RANGE -> {
        Range range = filter.getRange();
        BytesRef lower = range.hasLower() ? new BytesRef(FieldValues.keyword(column, range.getLower())) : null;
        BytesRef upper = range.hasUpper() ? new BytesRef(FieldValues.keyword(column, range.getUpper())) : null;
        boolean lowerInclusive = range.getLowerInclusive();
        boolean upperInclusive = range.getUpperInclusive();
        String description = (lowerInclusive ? "[" : "(") + (lower == null ? "*" : quote(lower.utf8ToString())) + ", "
            + (upper == null ? "*" : quote(upper.utf8ToString())) + (upperInclusive ? "]" : ")");
        return new StoredAttributeQuery(key, "in " + description, value -> {
          BytesRef bytes = new BytesRef(value);
          int low = lower == null ? 1 : bytes.compareTo(lower);
          int high = upper == null ? -1 : bytes.compareTo(upper);
          return (low > 0 || low == 0 && lowerInclusive) && (high < 0 || high == 0 && upperInclusive);
        });
      }
      case LIKE -> {
        WildcardQuery wildcard = (WildcardQuery) like(column.name(), filter.getLike().getPattern());
        CharacterRunAutomaton automaton = new CharacterRunAutomaton(wildcard.getAutomaton());
        return new StoredAttributeQuery(key, "LIKE " + quote(filter.getLike().getPattern()), automaton::run);
      }
      case EXISTS -> {
        return new StoredAttributeQuery(key, "IS NOT NULL", value -> true);
      }
      default -> throw new IllegalStateException("not an attribute leaf: " + filter.getKindCase());
    }
  }

  private static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  private static Query indexed(Filter filter, RowConditions rows) {
    return switch (filter.getKindCase()) {
      case MATCH_ALL -> new MatchAllDocsQuery();
      case TERM -> term(filter.getTerm());
      case TERMS -> terms(filter.getTerms());
      case RANGE -> range(filter.getRange());
      case MATCH -> match(filter.getMatch().getField(), filter.getMatch().getText());
      case BOOL -> bool(filter.getBool(), rows);
      case EXISTS -> exists(filter.getExists().getField());
      case LIKE -> like(filter.getLike().getField(), filter.getLike().getPattern());
      case COMPOSITE_RANGE -> compositeRange(filter.getCompositeRange());
      case ROW_CONDITION -> new RowConditionQuery(ExpressionCodec.decode(filter.getRowCondition()), rows);
      case KIND_NOT_SET -> throw new IllegalArgumentException("a filter must set one kind (term, range, bool, ...)");
    };
  }

  private static Query term(Term term) {
    Column column = indexed(term.getField());
    boolean docValues = term.getAccess() == AccessPath.DOC_VALUES;
    if (column.isNumeric()) {
      Long value = FieldValues.exact(FieldValues.numeric(column, term.getValue()));
      if (value == null) {
        return new MatchNoDocsQuery(column.name() + " never equals " + FieldValues.describe(term.getValue()));
      }
      Query values = NumericDocValuesField.newSlowExactQuery(column.name(), value);
      return docValues ? values : indexOrDocValues(LongPoint.newExactQuery(column.name(), value), values);
    }
    String text = FieldValues.keyword(column, term.getValue());
    requireKeyword(column, "=");
    Query values = SortedDocValuesField.newSlowExactQuery(column.name(), new BytesRef(text));
    return docValues ? values
        : indexOrDocValues(new TermQuery(new org.apache.lucene.index.Term(column.name(), text)), values);
  }

  private static Query terms(Terms terms) {
    Column column = indexed(terms.getField());
    boolean docValues = terms.getAccess() == AccessPath.DOC_VALUES;
    if (terms.getValuesCount() == 0) {
      return new MatchNoDocsQuery("IN () of " + column.name());
    }
    if (column.isNumeric()) {
      List<Long> values = new ArrayList<>();
      for (Value value : terms.getValuesList()) {
        Long exact = FieldValues.exact(FieldValues.numeric(column, value));
        if (exact != null) {
          values.add(exact);
        }
      }
      long[] array = values.stream().mapToLong(Long::longValue).toArray();
      if (array.length == 0) {
        return new MatchNoDocsQuery(column.name() + " never equals any of the values");
      }
      Query valuesQuery = NumericDocValuesField.newSlowSetQuery(column.name(), array);
      return docValues ? valuesQuery : indexOrDocValues(LongPoint.newSetQuery(column.name(), array), valuesQuery);
    }
    requireKeyword(column, "IN");
    List<BytesRef> values = new ArrayList<>();
    for (Value value : terms.getValuesList()) {
      values.add(new BytesRef(FieldValues.keyword(column, value)));
    }
    Query valuesQuery = SortedDocValuesField.newSlowSetQuery(column.name(), values.toArray(BytesRef[]::new));
    return docValues ? valuesQuery : indexOrDocValues(new TermInSetQuery(column.name(), values), valuesQuery);
  }

  private static Query range(Range range) {
    Column column = indexed(range.getField());
    boolean docValues = range.getAccess() == AccessPath.DOC_VALUES;
    if (column.isNumeric()) {
      Long lower = Long.MIN_VALUE;
      Long upper = Long.MAX_VALUE;
      if (range.hasLower()) {
        lower = FieldValues.lowerBound(FieldValues.numeric(column, range.getLower()), range.getLowerInclusive());
      }
      if (range.hasUpper()) {
        upper = FieldValues.upperBound(FieldValues.numeric(column, range.getUpper()), range.getUpperInclusive());
      }
      if (lower == null || upper == null || lower > upper) {
        return new MatchNoDocsQuery("empty range on " + column.name());
      }
      Query values = NumericDocValuesField.newSlowRangeQuery(column.name(), lower, upper);
      return docValues ? values : indexOrDocValues(LongPoint.newRangeQuery(column.name(), lower, upper), values);
    }
    requireKeyword(column, "a range");
    BytesRef lower = range.hasLower() ? new BytesRef(FieldValues.keyword(column, range.getLower())) : null;
    BytesRef upper = range.hasUpper() ? new BytesRef(FieldValues.keyword(column, range.getUpper())) : null;
    Query values = SortedDocValuesField.newSlowRangeQuery(column.name(), lower, upper, range.getLowerInclusive(),
        range.getUpperInclusive());
    return docValues ? values : indexOrDocValues(
        new TermRangeQuery(column.name(), lower, upper, range.getLowerInclusive(), range.getUpperInclusive()), values);
  }

  /**
   * A condition read from the index where that is cheaper, and checked on each candidate's doc values where another
   * clause of its conjunction leads with few rows (Lucene chooses per segment, from the clauses' costs): a small
   * tenant's rows in one day need not intersect a whole shard's price tree.
   */
  private static Query indexOrDocValues(Query index, Query docValues) {
    return new IndexOrDocValuesQuery(index, docValues);
  }

  private static Query match(String field, String text) {
    Column column = TransactionLogsTable.require(field);
    if (column.type() != ColumnType.TEXT) {
      throw new IllegalArgumentException("full-text match needs a TEXT column; " + field + " is " + column.type());
    }
    Query query = new QueryBuilder(ANALYZER).createBooleanQuery(field, text, BooleanClause.Occur.SHOULD);
    return query == null ? new MatchNoDocsQuery("no words in '" + text + "'") : query;
  }

  private static Query bool(Bool bool, RowConditions rows) {
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    boolean positive = false;
    for (Filter must : bool.getMustList()) {
      builder.add(translate(must, rows), BooleanClause.Occur.FILTER);
      positive = true;
    }
    for (Filter should : bool.getShouldList()) {
      builder.add(translate(should, rows), BooleanClause.Occur.SHOULD);
    }
    if (bool.getShouldCount() > 0) {
      builder.setMinimumNumberShouldMatch(1);
      positive = true;
    }
    for (Filter mustNot : bool.getMustNotList()) {
      builder.add(translate(mustNot, rows), BooleanClause.Occur.MUST_NOT);
    }
    if (!positive) {
      builder.add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER);
    }
    return builder.build();
  }

  private static Query exists(String field) {
    if (field.startsWith(IndexFields.ATTRIBUTE_PREFIX)) {
      return new FieldExistsQuery(field);
    }
    Column column = TransactionLogsTable.require(field);
    if (column.type() == ColumnType.ATTRIBUTES) {
      throw new IllegalArgumentException("IS [NOT] NULL on attributes is not indexed; test attr('key') instead");
    }
    return new FieldExistsQuery(field);
  }

  private static Query like(String field, String pattern) {
    Column column = indexed(field);
    requireKeyword(column, "LIKE");
    StringBuilder wildcard = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        appendLiteral(wildcard, pattern.charAt(++i));
      } else if (c == '%') {
        wildcard.append(WildcardQuery.WILDCARD_STRING);
      } else if (c == '_') {
        wildcard.append(WildcardQuery.WILDCARD_CHAR);
      } else {
        appendLiteral(wildcard, c);
      }
    }
    return new WildcardQuery(new org.apache.lucene.index.Term(field, wildcard.toString()));
  }

  private static void appendLiteral(StringBuilder wildcard, char c) {
    if (c == WildcardQuery.WILDCARD_STRING || c == WildcardQuery.WILDCARD_CHAR || c == WildcardQuery.WILDCARD_ESCAPE) {
      wildcard.append(WildcardQuery.WILDCARD_ESCAPE);
    }
    wildcard.append(c);
  }

  private static Query compositeRange(CompositeRange range) {
    long[] bounds = compositeBounds(range);
    return bounds == null ? new MatchNoDocsQuery("empty composite range")
        : new CompositeRangeQuery(bounds[0], bounds[1], bounds[2], bounds[3]);
  }

  /**
   * A composite range's inclusive bounds as {lowTenant, lowCreated, highTenant, highCreated}, or null when it is
   * empty.
   */
  static long[] compositeBounds(CompositeRange range) {
    if (!IndexFields.TENANT_CREATED.equals(range.getIndex())) {
      throw new IllegalArgumentException("unknown composite index '" + range.getIndex() + "'; composite indexes are ["
          + IndexFields.TENANT_CREATED + "]");
    }
    if (range.getLowerCount() != 2 || range.getUpperCount() != 2) {
      throw new IllegalArgumentException(IndexFields.TENANT_CREATED
          + " needs two bounds on each side, (tenant_id, created_time); got " + range.getLowerCount() + " and "
          + range.getUpperCount());
    }
    Column tenant = TransactionLogsTable.require("tenant_id");
    Column created = TransactionLogsTable.require("created_time");
    Long lowTenant = FieldValues.lowerBound(FieldValues.numeric(tenant, range.getLower(0)), true);
    Long lowCreated = FieldValues.lowerBound(FieldValues.numeric(created, range.getLower(1)), true);
    Long highTenant = FieldValues.upperBound(FieldValues.numeric(tenant, range.getUpper(0)), true);
    Long highCreated = FieldValues.upperBound(FieldValues.numeric(created, range.getUpper(1)), true);
    if (lowTenant == null || lowCreated == null || highTenant == null || highCreated == null) {
      return null;
    }
    return new long[] {lowTenant, lowCreated, highTenant, highCreated};
  }

  /** A column with an index or doc values to filter on; a hot attribute's field is a keyword. */
  private static Column indexed(String field) {
    if (field.startsWith(IndexFields.ATTRIBUTE_PREFIX)) {
      return new Column(field, ColumnType.KEYWORD, true);
    }
    Column column = TransactionLogsTable.require(field);
    if (column.type() == ColumnType.TEXT) {
      throw new IllegalArgumentException(field + " is full text: filter it with a match, not =, IN, LIKE or a range");
    }
    if (column.type() == ColumnType.ATTRIBUTES) {
      throw new IllegalArgumentException(
          "attributes is not indexed as a whole; filter on attr('key') (hot keys are indexed, others scanned)");
    }
    return column;
  }

  private static void requireKeyword(Column column, String what) {
    if (column.type() != ColumnType.KEYWORD) {
      throw new IllegalArgumentException(what + " on " + column.name() + " (" + column.type() + ") is not supported");
    }
  }
}
