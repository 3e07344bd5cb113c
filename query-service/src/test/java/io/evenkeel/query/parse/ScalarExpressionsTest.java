package io.evenkeel.query.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.expr.Evaluator;
import io.evenkeel.expr.Expr;
import io.evenkeel.expr.SessionTimeZone;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.expr.TableRow;
import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MySQL's scalar expressions as the service evaluates them over one row, each with the value MySQL gives (MariaDB
 * 10.11 checked by hand, and the differential test checks the common ones against it on every run). The row: status
 * 2, quantity 3, price 12.35, seller_nick 'ann', buyer_nick NULL, created at 2023-11-14 22:13:20 UTC (a Tuesday).
 */
class ScalarExpressionsTest {
  private static final TableRow ROW = TableRow.of(TransactionLogChange.newBuilder().setOp(ChangeOp.INSERT)
      .setTenantId(7).setRowId(42).setCreatedTime(1_700_000_000_000L).setModifiedTime(1_700_000_000_000L)
      .setVersion(1).setStatus(2).setQuantity(3).setPrice(new BigDecimal("12.35")).setSellerNick("ann").build());

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', nullValues = "NULL", textBlock = """
      CASE WHEN status = 2 THEN 'two' ELSE 'other' END                | two
      CASE status WHEN 1 THEN 'one' WHEN 2 THEN 'two' END               | two
      CASE WHEN buyer_nick = 'x' THEN 1 END                             | NULL
      CASE buyer_nick WHEN NULL THEN 'null matches' ELSE 'no match' END | no match
      IF(quantity > 2, 'many', 'few')                                   | many
      IF(buyer_nick = 'x', 'yes', 'unknown is not true')                | unknown is not true
      NULLIF(quantity, 3)                                               | NULL
      NULLIF(quantity, 4)                                               | 3
      GREATEST(quantity, 2, 5)                                          | 5
      LEAST(price, 20)                                                  | 12.35
      GREATEST(quantity, NULL)                                          | NULL
      quantity % 2                                                      | 1
      -7 % 3                                                            | -1
      7 % -3                                                            | 1
      MOD(price, 5)                                                     | 2.35
      5 % 0                                                             | NULL
      CAST(price AS SIGNED)                                             | 12
      CAST(12.5 AS SIGNED)                                              | 13
      CAST(-12.5 AS SIGNED)                                             | -13
      CAST('12.7abc' AS SIGNED)                                         | 12
      CAST('abc' AS SIGNED)                                             | 0
      CAST(-1 AS UNSIGNED)                                              | 18446744073709551615
      CAST(price AS DECIMAL(5, 1))                                      | 12.4
      CAST(1234.5 AS DECIMAL(4, 1))                                     | 999.9
      CAST(' 7.25 kg' AS DECIMAL(6, 2))                                 | 7.25
      CAST(price AS CHAR)                                               | 12.35
      CAST(seller_nick AS CHAR(2))                                      | an
      ABS(-3)                                                           | 3
      SIGN(-price)                                                      | -1
      FLOOR(-1.5)                                                       | -2
      CEIL(1.2)                                                         | 2
      CEILING(price)                                                    | 13
      ROUND(2.5)                                                        | 3
      ROUND(-2.5)                                                       | -3
      ROUND(price, 1)                                                   | 12.4
      ROUND(1250, -2)                                                   | 1300
      TRUNCATE(price, 1)                                                | 12.3
      TRUNCATE(-1.99, 0)                                                | -1
      LOWER('ÉVA')                                                      | éva
      UPPER('straße')                                                   | STRAßE
      LENGTH('x😀')                                                     | 5
      CHAR_LENGTH('x😀')                                                | 2
      CONCAT(seller_nick, '-', quantity, '-', price)                    | ann-3-12.35
      CONCAT('a', buyer_nick)                                           | NULL
      CONCAT_WS(',', 'a', buyer_nick, 'b')                              | a,b
      SUBSTRING('x😀yz', 2, 2)                                          | 😀y
      SUBSTRING('hello', -3)                                            | llo
      SUBSTR('hello', 0)                                                | ""
      LEFT('x😀yz', 2)                                                  | x😀
      RIGHT('hello', 2)                                                 | lo
      TRIM('  a  ')                                                     | a
      LTRIM('  a ')                                                     | "a "
      RTRIM(' a  ')                                                     | " a"
      TRIM(LEADING 'x' FROM 'xxaxx')                                    | axx
      REPLACE('aXbX', 'X', '-')                                         | a-b-
      LOCATE('b', 'abcb')                                               | 2
      LOCATE('b', 'abcb', 3)                                            | 4
      INSTR('abc', 'c')                                                 | 3
      POSITION('c' IN 'abc')                                            | 3
      LPAD('7', 3, '0')                                                 | 007
      RPAD('ab', 5, 'xy')                                               | abxyx
      LPAD('hello', 2, '*')                                             | he
      DATE(FROM_UNIXTIME(created_time / 1000))                          | 2023-11-14
      YEAR(FROM_UNIXTIME(created_time / 1000))                          | 2023
      QUARTER(FROM_UNIXTIME(created_time / 1000))                       | 4
      MONTH(FROM_UNIXTIME(created_time / 1000))                         | 11
      DAYOFMONTH(FROM_UNIXTIME(created_time / 1000))                    | 14
      DAYOFWEEK(FROM_UNIXTIME(created_time / 1000))                     | 3
      WEEKDAY(FROM_UNIXTIME(created_time / 1000))                       | 1
      DAYOFYEAR(FROM_UNIXTIME(created_time / 1000))                     | 318
      HOUR(FROM_UNIXTIME(created_time / 1000))                          | 22
      MINUTE(FROM_UNIXTIME(created_time / 1000))                        | 13
      UNIX_TIMESTAMP(FROM_UNIXTIME(created_time / 1000))                | 1700000000.0000
      UNIX_TIMESTAMP('2024-01-01')                                      | 1704067200
      DATE_ADD('2024-01-31', INTERVAL 1 MONTH)                          | 2024-02-29
      DATE_SUB(DATE(FROM_UNIXTIME(created_time / 1000)), INTERVAL 2 DAY) | 2023-11-12
      DATE_ADD('2024-01-01', INTERVAL 90 MINUTE)                        | 2024-01-01 01:30:00
      DATEDIFF('2024-03-01', '2024-02-01')                              | 29
      CAST('2024-05-01 10:00:00' AS DATE)                               | 2024-05-01
      FROM_UNIXTIME(created_time / 1000) > '2023-11-14'                 | 1
      DATE(FROM_UNIXTIME(created_time / 1000)) = '2023-11-14'           | 1
      YEAR('not a date')                                                | NULL
      DATE_FORMAT('2024-05-01', '%Y/%m')                                | 2024/05
      7 DIV 2                                                           | 3
      -7 div 2                                                          | -3
      price DIV 5                                                       | 2
      7 DIV 0                                                           | NULL
      1 + 7 DIV 2 * 2                                                   | 7
      quantity MOD 2                                                    | 1
      MOD(quantity, 2)                                                  | 1
      POW(2, 10)                                                        | 1024
      POWER(price, 0)                                                   | 1
      POW(2, -1)                                                        | 0.5
      SQRT(2)                                                           | 1.4142135623730951
      SQRT(-1)                                                          | NULL
      CAST('2024-05-01' AS DATETIME)                                    | 2024-05-01 00:00:00
      CAST(FROM_UNIXTIME(1700000000.6) AS DATETIME)                     | 2023-11-14 22:13:20
      CAST('2024-05-01 10:00:00.123456' AS DATETIME(3))                 | 2024-05-01 10:00:00.123
      CONVERT(price, SIGNED)                                            | 12
      CONVERT(CONCAT(seller_nick, ','), CHAR(3))                        | ann
      CONVERT(seller_nick USING utf8mb4)                                | ann
      DAY(FROM_UNIXTIME(created_time / 1000))                           | 14
      FROM_UNIXTIME(created_time / 1000) + INTERVAL 1 DAY               | 2023-11-15 22:13:20.0000
      INTERVAL 2 HOUR + '2024-01-01'                                    | 2024-01-01 02:00:00
      DATE(FROM_UNIXTIME(created_time / 1000)) - INTERVAL 1 MONTH       | 2023-10-14
      status = 1 && quantity = 3                                        | 0
      'a div b'                                                         | a div b
      buyer_nick <=> NULL                                               | 1
      seller_nick <=> buyer_nick                                        | 0
      quantity <=> 3                                                    | 1
      FROM_UNIXTIME(created_time / 1000) + INTERVAL ABS(-2) HOUR        | 2023-11-15 00:13:20.0000
      DATE_ADD('2024-01-01', INTERVAL CASE WHEN quantity > 2 THEN 1 END DAY) | 2024-01-02
      DATE_SUB('2024-01-01', INTERVAL HOUR('2024-01-01 03:00:00') HOUR) | 2023-12-31 21:00:00
      DATE_ADD('2024-01-01', INTERVAL NULL DAY)                         | NULL
      DATE_ADD('2024-01-01', INTERVAL -1 DAY)                           | 2023-12-31
      COALESCE(DATE(FROM_UNIXTIME(created_time / 1000)), FROM_UNIXTIME(created_time / 1000)) | 2023-11-14 00:00:00.0000
      IF(quantity > 2, DATE(FROM_UNIXTIME(created_time / 1000)), CAST('2024-01-01' AS DATETIME(2))) | 2023-11-14 00:00:00.00
      GREATEST(DATE(FROM_UNIXTIME(created_time / 1000)), DATE('2020-01-01'))  | 2023-11-14
      SUBSTRING('abc', 2, NULL)                                         | NULL
      REPLACE('abc', 'x', NULL)                                         | abc
      REPLACE('abc', 'b', NULL)                                         | NULL
      (2 / 3) * 3                                                       | 2.0000
      1 / 3 * 3 = 1                                                     | 1
      2 / 3 = 0.6667                                                    | 1
      CONCAT(2 / 3)                                                     | 0.6667
      ROUND(2 / 3, 6)                                                   | 0.666667
      ABS(-2 / 3)                                                       | 0.6667
      price / quantity                                                  | 4.116667
      (price / quantity) * quantity                                     | 12.350000
      IF(quantity > 5, price / 7, 1 / 7)                                | 0.142857
      COALESCE(NULL, 2 / 3, price)                                      | 0.6667
      FROM_UNIXTIME(created_time / 1000)                                | 2023-11-14 22:13:20.0000
      FROM_UNIXTIME((created_time + 1) / 1000)                          | 2023-11-14 22:13:20.0010
      FROM_UNIXTIME(price / 1000)                                       | 1970-01-01 00:00:00.012350
      FROM_UNIXTIME(-1000 / 1000)                                       | NULL
      SECOND(FROM_UNIXTIME((created_time + 59999) / 1000))             | 19
      """)
  void evaluatesAsMySqlDoes(String expression, String expected) {
    Object value = eval(expression);
    assertThat(value == null ? null : SqlValues.output(value).toString()).isEqualTo(expected);
  }

  @Test
  void doublePipesAreOrAsInMySql() {
    assertThat(SqlValues.output(eval("status = 2 || quantity = 0"))).isEqualTo(1L);
    assertThat(SqlValues.output(eval("status = 1 || quantity = 0"))).isEqualTo(0L);
    assertThat(SqlValues.output(eval("0 || 7 DIV 2"))).isEqualTo(1L);
  }

  @ParameterizedTest(name = "{0} in {1} = {2}")
  @CsvSource(delimiter = '|', textBlock = """
      FROM_UNIXTIME(1700000000)                         | +08:00        | 2023-11-15 06:13:20
      HOUR(FROM_UNIXTIME(created_time / 1000))          | -5:00         | 17
      DATE(FROM_UNIXTIME(created_time / 1000))          | Asia/Shanghai | 2023-11-15
      UNIX_TIMESTAMP('2023-11-15 06:13:20')             | +08:00        | 1700000000
      UNIX_TIMESTAMP('2024-07-01 00:00:00')             | Europe/Berlin | 1719784800
      FROM_UNIXTIME(1704067200)                         | UTC           | 2024-01-01 00:00:00
      """)
  void dateFunctionsWorkInTheSessionTimeZone(String expression, String zone, String expected) {
    Evaluator evaluator = new Evaluator((chars, function) -> { }, SessionTimeZone.parse(zone));
    assertThat(SqlValues.output(evaluator.eval(parse(expression), ROW)).toString()).isEqualTo(expected);
  }

  @Test
  void timeZonesAreNamedAsMySqlNamesThem() {
    assertThatThrownBy(() -> SessionTimeZone.parse("+14:01")).hasMessageContaining("out of range (-13:59 to +14:00)");
    assertThatThrownBy(() -> SessionTimeZone.parse("Mars/Olympus")).hasMessageContaining("unknown time zone");
    assertThat(SessionTimeZone.parse("-13:59").getId()).isEqualTo("-13:59");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      ABS('x')                               | ABS needs a number; got string 'x'
      ROUND(price, 1.5)                      | ROUND takes a whole number of digits
      CAST(price AS DECIMAL(70, 2))          | DECIMAL precision 70 is out of range (1 to 65)
      CAST(price AS DECIMAL(5, 6))           | DECIMAL(5, 6): the scale must be between 0 and 5
      CAST(price AS TIME)                    | CAST to TIME (SIGNED, UNSIGNED, DECIMAL(p, s), CHAR, DATE and DATETIME
      CAST('2024-05-01' AS DATETIME(7))      | DATETIME(7): at most 6 fractional-second digits
      CONVERT(title USING latin1)            | CONVERT(... USING latin1) (text is utf8mb4: USING utf8mb4)
      POW(10, 400)                           | DOUBLE value is out of range in POW(10, 400)
      'a' DIV 2                              | DIV needs a number; got string 'a'
      CAST(quantity AS INTERVAL DAY)         | CAST to DAY is not supported
      YEAR(created_time)                     | YEAR needs a date or date-time, such as FROM_UNIXTIME(created_time
      DATE_ADD('2024-01-01', 1)              | DATE_ADD takes a date and an INTERVAL
      NULLIF(quantity)                       | NULLIF takes 2 arguments; got 1
      GREATEST(quantity)                     | GREATEST takes at least 2 arguments; got 1
      SUBSTR('a')                            | SUBSTR takes 2 or 3 arguments; got 1
      LPAD('a', 20000000, 'b')               | LPAD would build a text of more than 16777216 characters
      DAYNAME(FROM_UNIXTIME(created_time / 1000)) | function DAYNAME (functions are COUNT
      """)
  void refusesWithTheReason(String expression, String message) {
    assertThatThrownBy(() -> eval(expression)).isInstanceOf(RuntimeException.class).hasMessageContaining(message);
  }

  @Test
  void textThatFunctionsBuildIsChargedToTheQuery() {
    Map<String, Long> charged = new TreeMap<>();
    Evaluator evaluator = new Evaluator((chars, function) -> charged.merge(function, chars, Long::sum),
        SessionTimeZone.DEFAULT);
    for (String expression : List.of("CONCAT(seller_nick, '-', quantity)", "LPAD('7', 3, '0')",
        "REPLACE('aXbX', 'X', '--')", "UPPER(seller_nick)", "SUBSTRING('hello', 2)")) {
      evaluator.eval(parse(expression), ROW);
    }
    assertThat(charged).containsExactly(Map.entry("CONCAT", 5L), Map.entry("LPAD", 3L), Map.entry("REPLACE", 6L));
  }

  private static Expr parse(String expression) {
    return StatementParser.parse("SELECT " + expression + " FROM transaction_logs", List.of()).items().get(0).expr();
  }

  /** The evaluator's value, which the compiled form (the shards') must give too. */
  private static Object eval(String expression) {
    Expr expr = parse(expression);
    Object value = new Evaluator().eval(expr, ROW);
    assertThat(new Evaluator().compile(expr).eval(ROW)).as("compiled %s", expression).isEqualTo(value);
    return value;
  }
}
