-- Everyday MySQL/MariaDB user queries against transaction_logs (one query per line)
-- Plain filters
SELECT tenant_id, row_id, status, price FROM transaction_logs WHERE tenant_id = 3 ORDER BY tenant_id, row_id LIMIT 20
SELECT row_id, seller_nick, price FROM transaction_logs WHERE tenant_id = 5 AND status = 2
SELECT tenant_id, row_id, price FROM transaction_logs WHERE status != 0 AND tenant_id = 7
SELECT tenant_id, row_id, status FROM transaction_logs WHERE status <> 4 AND price > 900
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price < 10
SELECT tenant_id, row_id, price, quantity FROM transaction_logs WHERE price >= 500 AND quantity <= 2
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price BETWEEN 100 AND 200 AND tenant_id = 2
SELECT tenant_id, row_id, quantity FROM transaction_logs WHERE quantity NOT BETWEEN 2 AND 9 AND tenant_id IN (1, 2, 3)
SELECT tenant_id, row_id, status FROM transaction_logs WHERE status IN (1, 3) AND tenant_id = 10
SELECT tenant_id, row_id, status FROM transaction_logs WHERE status NOT IN (0, 1, 2) AND buyer_id = 7
SELECT tenant_id, row_id FROM transaction_logs WHERE status IS NULL
SELECT COUNT(*) FROM transaction_logs WHERE seller_nick IS NULL
SELECT tenant_id, row_id, buyer_id FROM transaction_logs WHERE buyer_id IS NOT NULL AND buyer_id < 3
SELECT tenant_id, row_id, seller_nick FROM transaction_logs WHERE seller_nick = 'ann'
SELECT tenant_id, row_id, seller_nick FROM transaction_logs WHERE seller_nick = 'ann '
SELECT COUNT(*) FROM transaction_logs WHERE seller_nick = 'cat'
SELECT COUNT(*) FROM transaction_logs WHERE seller_nick = 'Cat'
SELECT seller_nick, COUNT(*) FROM transaction_logs WHERE seller_nick IN ('ann', 'ann ') GROUP BY seller_nick
SELECT tenant_id, row_id, seller_nick, buyer_nick FROM transaction_logs WHERE seller_nick = buyer_nick AND tenant_id < 5
SELECT tenant_id, row_id, seller_nick FROM transaction_logs WHERE seller_nick IN ('éva', '100%', 'b_b') AND status = 1
SELECT tenant_id, row_id FROM transaction_logs WHERE seller_nick NOT IN ('ann', 'bob') AND tenant_id = 4
SELECT tenant_id, row_id, created_time FROM transaction_logs WHERE created_time > 1701000000000 AND tenant_id = 6
SELECT tenant_id, row_id FROM transaction_logs WHERE modified_time < created_time
SELECT COUNT(*) FROM transaction_logs WHERE group_id = 0 OR group_id IS NULL
-- LIKE / NOT LIKE
SELECT tenant_id, row_id, title FROM transaction_logs WHERE title LIKE '%wool%' AND tenant_id = 1
SELECT COUNT(*) FROM transaction_logs WHERE title LIKE 'red %'
SELECT COUNT(*) FROM transaction_logs WHERE title NOT LIKE '%scarf%'
SELECT tenant_id, row_id, seller_nick FROM transaction_logs WHERE seller_nick LIKE 'b_b'
SELECT DISTINCT seller_nick FROM transaction_logs WHERE seller_nick LIKE '___'
SELECT DISTINCT seller_nick FROM transaction_logs WHERE seller_nick LIKE 'ann%'
SELECT DISTINCT buyer_nick FROM transaction_logs WHERE buyer_nick LIKE '%\%'
SELECT COUNT(*) FROM transaction_logs WHERE seller_nick LIKE 'C%'
SELECT COUNT(*) FROM transaction_logs WHERE seller_nick LIKE 'c%'
SELECT tenant_id, row_id, title FROM transaction_logs WHERE title LIKE '%gift' AND title NOT LIKE 'blue%' AND tenant_id <= 3
SELECT COUNT(*) FROM transaction_logs WHERE attributes LIKE '%color:red%'
SELECT COUNT(*) FROM transaction_logs WHERE attributes IS NULL
SELECT COUNT(*) FROM transaction_logs WHERE buyer_nick LIKE '%é%'
SELECT status, COUNT(*) FROM transaction_logs WHERE title LIKE '%cotton%' AND attributes LIKE '%color:red%' GROUP BY status
-- AND / OR / NOT nesting
SELECT tenant_id, row_id, status, price FROM transaction_logs WHERE (status = 1 OR status = 2) AND price > 800
SELECT tenant_id, row_id FROM transaction_logs WHERE status = 1 OR status = 2 AND price > 800
SELECT COUNT(*) FROM transaction_logs WHERE NOT (status = 0 OR status IS NULL)
SELECT COUNT(*) FROM transaction_logs WHERE NOT status = 3
SELECT tenant_id, row_id FROM transaction_logs WHERE tenant_id = 8 AND (seller_nick = 'bob' OR buyer_nick = 'bob') AND NOT (quantity > 5)
SELECT COUNT(*) FROM transaction_logs WHERE (price > 500 AND quantity > 5) OR (price < 50 AND quantity = 1)
SELECT COUNT(*) FROM transaction_logs WHERE status IS NOT NULL AND NOT (buyer_id IN (1, 2, 3) OR group_id IN (4, 5))
select tenant_id, row_id from transaction_logs where not (price between 10 and 990) and tenant_id = 12
-- ORDER BY with LIMIT / OFFSET
SELECT tenant_id, row_id, price FROM transaction_logs ORDER BY price DESC, tenant_id, row_id LIMIT 10
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price IS NOT NULL ORDER BY price, tenant_id, row_id LIMIT 5
SELECT row_id, price FROM transaction_logs WHERE tenant_id = 1 ORDER BY price DESC, tenant_id, row_id LIMIT 3
SELECT tenant_id, row_id, created_time FROM transaction_logs ORDER BY created_time DESC, tenant_id, row_id LIMIT 10 OFFSET 20
SELECT tenant_id, row_id, seller_nick FROM transaction_logs ORDER BY seller_nick, tenant_id, row_id LIMIT 20, 10
SELECT row_id, quantity, price FROM transaction_logs WHERE tenant_id = 9 ORDER BY quantity DESC, price DESC, tenant_id, row_id LIMIT 15
SELECT tenant_id, row_id, price * quantity AS amount FROM transaction_logs ORDER BY amount DESC, tenant_id, row_id LIMIT 10
SELECT tenant_id, row_id, status FROM transaction_logs ORDER BY status, tenant_id, row_id LIMIT 10
SELECT tenant_id, row_id, status FROM transaction_logs ORDER BY status DESC, tenant_id DESC, row_id DESC LIMIT 10
SELECT tenant_id, row_id, title FROM transaction_logs WHERE title IS NOT NULL ORDER BY LENGTH(title) DESC, title, tenant_id, row_id LIMIT 10
SELECT tenant_id, row_id, buyer_nick FROM transaction_logs ORDER BY 3 DESC, 1, 2 LIMIT 12
SELECT tenant_id, row_id, modified_time - created_time AS delay_ms FROM transaction_logs ORDER BY delay_ms DESC, tenant_id, row_id LIMIT 10
SELECT tenant_id, row_id FROM transaction_logs WHERE tenant_id = 20 ORDER BY tenant_id, row_id LIMIT 0, 5
SELECT tenant_id, row_id, price FROM transaction_logs ORDER BY tenant_id, row_id LIMIT 5 OFFSET 2395
SELECT tenant_id, row_id, group_id FROM transaction_logs ORDER BY group_id IS NULL, group_id, tenant_id, row_id LIMIT 10
SELECT tenant_id, row_id, price FROM transaction_logs WHERE status = 2 ORDER BY price * quantity DESC, tenant_id, row_id LIMIT 5, 5
-- Aggregates, GROUP BY, HAVING
SELECT COUNT(*) FROM transaction_logs
SELECT COUNT(*), COUNT(status), COUNT(seller_nick), COUNT(price) FROM transaction_logs
SELECT COUNT(DISTINCT seller_nick), COUNT(DISTINCT buyer_id), COUNT(DISTINCT status) FROM transaction_logs
SELECT SUM(price), AVG(price), MIN(price), MAX(price) FROM transaction_logs
SELECT SUM(quantity), AVG(quantity), MIN(quantity), MAX(quantity) FROM transaction_logs WHERE tenant_id = 4
SELECT tenant_id, COUNT(*) AS orders FROM transaction_logs GROUP BY tenant_id
SELECT tenant_id, COUNT(*) AS orders, SUM(price * quantity) AS revenue FROM transaction_logs GROUP BY tenant_id ORDER BY revenue DESC, tenant_id LIMIT 5
SELECT status, COUNT(*) FROM transaction_logs GROUP BY status ORDER BY status
SELECT tenant_id, status, COUNT(*) AS cnt FROM transaction_logs GROUP BY tenant_id, status ORDER BY tenant_id, status
SELECT seller_nick, COUNT(*) AS orders, SUM(quantity) AS units FROM transaction_logs GROUP BY seller_nick ORDER BY orders DESC, seller_nick
SELECT tenant_id, seller_nick, SUM(price * quantity) AS revenue FROM transaction_logs WHERE status = 2 GROUP BY tenant_id, seller_nick ORDER BY revenue DESC, tenant_id, seller_nick LIMIT 10
SELECT buyer_id, COUNT(*) AS orders, SUM(price) AS spend FROM transaction_logs WHERE buyer_id IS NOT NULL GROUP BY buyer_id HAVING COUNT(*) > 50
SELECT tenant_id, AVG(price) AS avg_price FROM transaction_logs GROUP BY tenant_id HAVING AVG(price) > 500
SELECT group_id, MIN(price), MAX(price), COUNT(price) FROM transaction_logs GROUP BY group_id
SELECT seller_nick, COUNT(DISTINCT buyer_id) AS buyers FROM transaction_logs GROUP BY seller_nick HAVING buyers > 10
SELECT tenant_id, MIN(created_time), MAX(created_time) FROM transaction_logs GROUP BY tenant_id
SELECT tenant_id, MAX(price) - MIN(price) AS price_range FROM transaction_logs GROUP BY tenant_id ORDER BY price_range DESC, tenant_id LIMIT 3
SELECT status, SUM(quantity) AS units, AVG(quantity) AS avg_units FROM transaction_logs WHERE tenant_id BETWEEN 1 AND 10 GROUP BY status
SELECT MIN(seller_nick), MAX(seller_nick), MIN(title), MAX(title) FROM transaction_logs
SELECT tenant_id, COUNT(*) FROM transaction_logs WHERE price > 900 GROUP BY tenant_id HAVING COUNT(*) > 3 ORDER BY 2 DESC, 1
SELECT buyer_id, SUM(price * quantity) AS spend FROM transaction_logs GROUP BY buyer_id ORDER BY spend DESC, buyer_id LIMIT 10
SELECT tenant_id, buyer_id, COUNT(*) FROM transaction_logs WHERE buyer_id < 5 GROUP BY tenant_id, buyer_id HAVING COUNT(*) > 1
SELECT COUNT(*) FROM transaction_logs WHERE tenant_id = 999
SELECT SUM(price), AVG(price), MAX(price), COUNT(price) FROM transaction_logs WHERE tenant_id = 999
SELECT title, COUNT(*) FROM transaction_logs GROUP BY title HAVING COUNT(*) >= 20
SELECT quantity, COUNT(*), SUM(price) FROM transaction_logs GROUP BY quantity ORDER BY quantity
SELECT tenant_id, COUNT(DISTINCT title) AS titles FROM transaction_logs GROUP BY tenant_id
SELECT tenant_id, group_id, SUM(quantity) AS units FROM transaction_logs WHERE status IN (1, 2, 3) GROUP BY tenant_id, group_id HAVING SUM(quantity) >= 20 ORDER BY units DESC, tenant_id, group_id LIMIT 15
SELECT seller_nick, AVG(price) AS avg_price, SUM(price * quantity) AS revenue FROM transaction_logs WHERE seller_nick IS NOT NULL GROUP BY seller_nick HAVING revenue > 100000 AND avg_price < 600
-- SELECT DISTINCT
SELECT DISTINCT status FROM transaction_logs
SELECT DISTINCT seller_nick FROM transaction_logs ORDER BY seller_nick
SELECT DISTINCT tenant_id, status FROM transaction_logs WHERE price > 950 ORDER BY tenant_id, status
SELECT DISTINCT buyer_nick FROM transaction_logs ORDER BY buyer_nick LIMIT 3
SELECT DISTINCT quantity * 10 AS q FROM transaction_logs ORDER BY q DESC LIMIT 4
SELECT DISTINCT LOWER(seller_nick) FROM transaction_logs
SELECT DISTINCT group_id FROM transaction_logs WHERE tenant_id = 11 ORDER BY group_id
-- CASE WHEN
SELECT tenant_id, row_id, CASE status WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'done' ELSE 'other' END AS status_name FROM transaction_logs WHERE tenant_id = 2
SELECT CASE WHEN price < 100 THEN 'cheap' WHEN price < 500 THEN 'mid' WHEN price IS NULL THEN 'unknown' ELSE 'premium' END AS band, COUNT(*) FROM transaction_logs GROUP BY band
SELECT CASE status WHEN 4 THEN 'refund' ELSE 'normal' END AS kind, SUM(price * quantity) FROM transaction_logs GROUP BY CASE status WHEN 4 THEN 'refund' ELSE 'normal' END
SELECT tenant_id, SUM(CASE WHEN quantity >= 5 THEN quantity ELSE 0 END) AS bulk_units FROM transaction_logs GROUP BY tenant_id ORDER BY tenant_id
SELECT tenant_id, row_id, CASE WHEN seller_nick IS NULL THEN 'no seller' WHEN seller_nick = buyer_nick THEN 'self' ELSE 'normal' END AS kind FROM transaction_logs WHERE tenant_id = 3
SELECT CASE WHEN quantity > 5 THEN 'large' ELSE 'small' END AS size, status, COUNT(*) FROM transaction_logs GROUP BY 1, 2 ORDER BY 1, 2
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price > CASE WHEN status = 1 THEN 900 ELSE 990 END
SELECT tenant_id, row_id, status FROM transaction_logs ORDER BY CASE WHEN status IS NULL THEN 1 ELSE 0 END, status DESC, tenant_id, row_id LIMIT 10
SELECT tenant_id, SUM(CASE WHEN status = 4 THEN 1 ELSE 0 END) AS refunds, COUNT(*) AS total FROM transaction_logs GROUP BY tenant_id
SELECT seller_nick, COUNT(CASE WHEN price > 500 THEN 1 END) AS big_orders, COUNT(*) FROM transaction_logs GROUP BY seller_nick
SELECT tenant_id, SUM(CASE status WHEN 2 THEN price * quantity WHEN 3 THEN price * quantity ELSE 0 END) AS realized FROM transaction_logs GROUP BY tenant_id ORDER BY realized DESC, tenant_id LIMIT 5
-- IF / IFNULL / COALESCE / NULLIF / GREATEST / LEAST
SELECT tenant_id, row_id, IF(price > 500, 'high', 'low') AS level FROM transaction_logs WHERE tenant_id = 4
SELECT IF(buyer_id IS NULL, 'guest', 'member') AS buyer_type, COUNT(*) FROM transaction_logs GROUP BY buyer_type
SELECT tenant_id, SUM(IF(status = 2, price * quantity, 0)) AS paid_revenue FROM transaction_logs GROUP BY tenant_id ORDER BY paid_revenue DESC, tenant_id LIMIT 5
SELECT tenant_id, row_id, IFNULL(seller_nick, '(none)') AS seller FROM transaction_logs WHERE tenant_id = 5
SELECT IFNULL(status, -1) AS st, COUNT(*) FROM transaction_logs GROUP BY IFNULL(status, -1) ORDER BY st
SELECT tenant_id, row_id, COALESCE(buyer_nick, seller_nick, 'unknown') AS nick FROM transaction_logs WHERE tenant_id = 6
SELECT tenant_id, SUM(COALESCE(price, 0) * COALESCE(quantity, 0)) AS revenue FROM transaction_logs GROUP BY tenant_id
SELECT tenant_id, row_id, NULLIF(status, 0) AS st FROM transaction_logs WHERE tenant_id = 7
SELECT tenant_id, row_id, price / NULLIF(status, 0) AS ratio FROM transaction_logs WHERE tenant_id = 8
SELECT tenant_id, row_id, GREATEST(created_time, modified_time) AS last_touch, LEAST(created_time, modified_time) AS first_touch FROM transaction_logs WHERE tenant_id = 9
SELECT tenant_id, row_id, GREATEST(price, 100), LEAST(quantity, 5) FROM transaction_logs WHERE tenant_id = 10
SELECT COUNT(*) FROM transaction_logs WHERE GREATEST(IFNULL(status, 0), IFNULL(quantity, 0)) > 8
SELECT tenant_id, row_id, IF(status IN (3, 4), price, NULL) AS closed_price FROM transaction_logs WHERE tenant_id = 11
SELECT NULLIF(seller_nick, 'ann') AS nick, COUNT(*) FROM transaction_logs GROUP BY nick
SELECT tenant_id, row_id FROM transaction_logs WHERE seller_nick <=> buyer_nick AND tenant_id < 4
SELECT tenant_id, MAX(LEAST(price, 500)) AS capped_max, MIN(GREATEST(quantity, 3)) AS floored_min FROM transaction_logs GROUP BY tenant_id
-- Arithmetic
SELECT tenant_id, row_id, price * quantity AS total, price + 10, price - 10, quantity * 2 FROM transaction_logs WHERE tenant_id = 12
SELECT tenant_id, row_id, price / quantity AS unit_price FROM transaction_logs WHERE tenant_id = 13
SELECT tenant_id, row_id, quantity DIV 3, quantity % 3, MOD(buyer_id, 7) FROM transaction_logs WHERE tenant_id = 14
SELECT buyer_id % 5 AS bucket, COUNT(*) FROM transaction_logs GROUP BY bucket ORDER BY bucket
SELECT tenant_id, row_id FROM transaction_logs WHERE MOD(row_id, 100) = 0
SELECT tenant_id, row_id, (modified_time - created_time) DIV 1000 AS secs FROM transaction_logs WHERE tenant_id = 15
SELECT tenant_id, row_id, price * 1.08 AS with_tax FROM transaction_logs WHERE tenant_id = 16 AND price IS NOT NULL
SELECT tenant_id, row_id, -price, price * -1, quantity - 11 FROM transaction_logs WHERE tenant_id = 17
SELECT created_time DIV 86400000 AS day_no, COUNT(*) FROM transaction_logs GROUP BY day_no ORDER BY day_no
SELECT tenant_id, row_id, price % 10, MOD(price, 3) FROM transaction_logs WHERE tenant_id = 18
SELECT tenant_id, SUM(price * quantity) / SUM(quantity) AS avg_unit_price FROM transaction_logs GROUP BY tenant_id
SELECT tenant_id, row_id, quantity / 4 FROM transaction_logs WHERE tenant_id = 19
SELECT (price DIV 100) * 100 AS bucket, COUNT(*) FROM transaction_logs GROUP BY bucket ORDER BY bucket
SELECT tenant_id, row_id, price * quantity - price AS extra FROM transaction_logs WHERE price * quantity > 9000
-- CAST / CONVERT
SELECT tenant_id, row_id, CAST(price AS SIGNED) FROM transaction_logs WHERE tenant_id = 1
SELECT tenant_id, row_id, CAST(quantity AS UNSIGNED), CAST(status AS CHAR) FROM transaction_logs WHERE tenant_id = 2
SELECT tenant_id, row_id, CAST(price * 1.1 AS DECIMAL(10,2)) FROM transaction_logs WHERE tenant_id = 3
SELECT CAST(FROM_UNIXTIME(created_time / 1000) AS DATE) AS d, COUNT(*) FROM transaction_logs GROUP BY d ORDER BY d
SELECT tenant_id, row_id, CAST(FROM_UNIXTIME(created_time / 1000) AS DATETIME) FROM transaction_logs WHERE tenant_id = 4
SELECT tenant_id, row_id, CONVERT(price, SIGNED) FROM transaction_logs WHERE tenant_id = 5
SELECT tenant_id, row_id, CAST(created_time / 1000 AS SIGNED) AS epoch_s FROM transaction_logs WHERE tenant_id = 6
SELECT tenant_id, row_id, CONCAT(CAST(buyer_id AS CHAR), '#') FROM transaction_logs WHERE tenant_id = 7
SELECT tenant_id, row_id, price FROM transaction_logs WHERE CAST(price AS SIGNED) = 500
SELECT COUNT(*) FROM transaction_logs WHERE CAST(FROM_UNIXTIME(created_time / 1000) AS DATE) = '2023-11-20'
SELECT tenant_id, row_id, CAST(quantity AS DECIMAL(10,2)) FROM transaction_logs WHERE tenant_id = 8
SELECT tenant_id, SUM(CAST(price AS SIGNED)) FROM transaction_logs GROUP BY tenant_id
-- Math functions
SELECT tenant_id, row_id, ROUND(price), ROUND(price, 1), ROUND(price, -1) FROM transaction_logs WHERE tenant_id = 9
SELECT tenant_id, row_id, FLOOR(price), CEIL(price), CEILING(price) FROM transaction_logs WHERE tenant_id = 10
SELECT tenant_id, row_id, ABS(price - 500), SIGN(price - 500) FROM transaction_logs WHERE tenant_id = 11
SELECT tenant_id, row_id, TRUNCATE(price, 1), TRUNCATE(price, 0) FROM transaction_logs WHERE tenant_id = 12
SELECT tenant_id, row_id, POW(quantity, 2), SQRT(quantity) FROM transaction_logs WHERE tenant_id = 13
SELECT SIGN(modified_time - created_time) AS s, COUNT(*) FROM transaction_logs GROUP BY s
SELECT tenant_id, ROUND(SUM(price * quantity), 0) AS revenue FROM transaction_logs GROUP BY tenant_id
SELECT tenant_id, row_id FROM transaction_logs WHERE POW(quantity, 2) > 50 AND tenant_id = 14
SELECT tenant_id, row_id, ROUND(price * quantity * 0.9, 2) AS discounted FROM transaction_logs WHERE tenant_id = 15
SELECT FLOOR(price) AS p, COUNT(*) FROM transaction_logs WHERE price < 20 GROUP BY p ORDER BY p
-- String functions
SELECT tenant_id, row_id, LOWER(seller_nick), UPPER(seller_nick) FROM transaction_logs WHERE tenant_id = 15
SELECT DISTINCT seller_nick, LENGTH(seller_nick), CHAR_LENGTH(seller_nick) FROM transaction_logs
SELECT tenant_id, row_id, CONCAT(seller_nick, ' -> ', buyer_nick) AS flow FROM transaction_logs WHERE tenant_id = 16
SELECT tenant_id, row_id, CONCAT_WS('/', seller_nick, buyer_nick, status) FROM transaction_logs WHERE tenant_id = 17
SELECT tenant_id, row_id, SUBSTRING(title, 1, 4), SUBSTR(title, 5), LEFT(title, 3), RIGHT(title, 3) FROM transaction_logs WHERE tenant_id = 18
SELECT LEFT(title, LOCATE(' ', title) - 1) AS first_word, COUNT(*) FROM transaction_logs WHERE title IS NOT NULL GROUP BY first_word ORDER BY first_word
SELECT DISTINCT seller_nick, TRIM(seller_nick), LTRIM(seller_nick), RTRIM(seller_nick) FROM transaction_logs
SELECT COUNT(*) FROM transaction_logs WHERE TRIM(seller_nick) = 'ann'
SELECT tenant_id, row_id, REPLACE(title, ' ', '_') FROM transaction_logs WHERE tenant_id = 19
SELECT tenant_id, row_id, LOCATE('wool', title), INSTR(title, 'red') FROM transaction_logs WHERE tenant_id = 20
SELECT COUNT(*) FROM transaction_logs WHERE INSTR(title, 'gift') > 0
SELECT tenant_id, row_id, LPAD(seller_nick, 6, '*'), RPAD(buyer_nick, 6, '.') FROM transaction_logs WHERE tenant_id = 1
SELECT tenant_id, row_id, LPAD(CAST(buyer_id AS CHAR), 3, '0') AS buyer_code FROM transaction_logs WHERE tenant_id = 2
SELECT UPPER(LEFT(seller_nick, 1)) AS initial, COUNT(*) FROM transaction_logs GROUP BY initial ORDER BY initial
SELECT DISTINCT seller_nick FROM transaction_logs WHERE CHAR_LENGTH(seller_nick) <> LENGTH(seller_nick)
SELECT CONCAT('tenant-', tenant_id) AS label, COUNT(*) FROM transaction_logs GROUP BY label ORDER BY label
SELECT tenant_id, row_id, CONCAT(UPPER(LEFT(title, 1)), SUBSTRING(title, 2)) AS nice_title FROM transaction_logs WHERE tenant_id = 3
SELECT tenant_id, row_id, SUBSTRING(title, -5), SUBSTRING(title, 2, 3) FROM transaction_logs WHERE tenant_id = 4
SELECT LENGTH(title) AS len, COUNT(*) FROM transaction_logs GROUP BY len ORDER BY len
SELECT tenant_id, row_id, title FROM transaction_logs WHERE LOWER(title) LIKE '%winter%' AND tenant_id = 4 ORDER BY tenant_id, row_id LIMIT 5
SELECT tenant_id, row_id FROM transaction_logs WHERE CONCAT(seller_nick, buyer_nick) = 'annbob'
SELECT UPPER(buyer_nick) AS nick, COUNT(*) FROM transaction_logs GROUP BY UPPER(buyer_nick) ORDER BY nick
SELECT tenant_id, row_id, TRIM(CONCAT('  ', seller_nick, '  ')) AS trimmed FROM transaction_logs WHERE tenant_id = 5
-- Date functions over FROM_UNIXTIME
SELECT tenant_id, row_id, FROM_UNIXTIME(created_time / 1000) AS created FROM transaction_logs WHERE tenant_id = 5 ORDER BY tenant_id, row_id LIMIT 10
SELECT DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(*) AS orders, SUM(price * quantity) AS revenue FROM transaction_logs GROUP BY day ORDER BY day
SELECT YEAR(FROM_UNIXTIME(created_time / 1000)) AS y, MONTH(FROM_UNIXTIME(created_time / 1000)) AS m, COUNT(*) FROM transaction_logs GROUP BY y, m ORDER BY y, m
SELECT DAY(FROM_UNIXTIME(created_time / 1000)) AS d, COUNT(*) FROM transaction_logs GROUP BY d
SELECT DAYOFWEEK(FROM_UNIXTIME(created_time / 1000)) AS dow, COUNT(*) FROM transaction_logs GROUP BY dow ORDER BY dow
SELECT WEEKDAY(FROM_UNIXTIME(created_time / 1000)) AS wd, SUM(quantity) FROM transaction_logs GROUP BY wd ORDER BY wd
SELECT HOUR(FROM_UNIXTIME(created_time / 1000)) AS h, COUNT(*) FROM transaction_logs GROUP BY h ORDER BY h
SELECT tenant_id, row_id, MINUTE(FROM_UNIXTIME(created_time / 1000)), DAYOFMONTH(FROM_UNIXTIME(created_time / 1000)) FROM transaction_logs WHERE tenant_id = 6
SELECT DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%Y-%m-%d') AS day, COUNT(*) FROM transaction_logs WHERE status = 2 GROUP BY day ORDER BY day
SELECT DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%Y-%m') AS month, SUM(price * quantity) AS revenue FROM transaction_logs GROUP BY month ORDER BY month
SELECT tenant_id, row_id FROM transaction_logs WHERE FROM_UNIXTIME(created_time / 1000) >= '2023-11-20' AND FROM_UNIXTIME(created_time / 1000) < '2023-11-21'
SELECT COUNT(*) FROM transaction_logs WHERE FROM_UNIXTIME(created_time / 1000) BETWEEN '2023-11-15 00:00:00' AND '2023-11-30 23:59:59'
SELECT COUNT(*) FROM transaction_logs WHERE DATE(FROM_UNIXTIME(created_time / 1000)) = '2023-11-25'
SELECT COUNT(*) FROM transaction_logs WHERE created_time >= UNIX_TIMESTAMP('2023-12-01') * 1000
SELECT tenant_id, row_id, UNIX_TIMESTAMP(DATE(FROM_UNIXTIME(created_time / 1000))) AS day_start FROM transaction_logs WHERE tenant_id = 7
SELECT tenant_id, row_id, DATE(DATE_ADD(FROM_UNIXTIME(created_time / 1000), INTERVAL 7 DAY)) AS due_date FROM transaction_logs WHERE tenant_id = 8
SELECT tenant_id, row_id, DATE_SUB(DATE(FROM_UNIXTIME(created_time / 1000)), INTERVAL 1 MONTH) AS month_ago FROM transaction_logs WHERE tenant_id = 9
SELECT tenant_id, row_id, DATE(FROM_UNIXTIME(created_time / 1000)) + INTERVAL 1 DAY AS next_day FROM transaction_logs WHERE tenant_id = 10
SELECT tenant_id, row_id, DATEDIFF(FROM_UNIXTIME(modified_time / 1000), FROM_UNIXTIME(created_time / 1000)) AS days_open FROM transaction_logs WHERE tenant_id = 11
SELECT DATEDIFF(FROM_UNIXTIME(modified_time / 1000), FROM_UNIXTIME(created_time / 1000)) AS days_open, COUNT(*) FROM transaction_logs GROUP BY days_open ORDER BY days_open
SELECT COUNT(*) FROM transaction_logs WHERE FROM_UNIXTIME(modified_time / 1000) > FROM_UNIXTIME(created_time / 1000) + INTERVAL 1 DAY
SELECT tenant_id, MIN(DATE(FROM_UNIXTIME(created_time / 1000))) AS first_day, MAX(DATE(FROM_UNIXTIME(created_time / 1000))) AS last_day FROM transaction_logs GROUP BY tenant_id
SELECT COUNT(*) FROM transaction_logs WHERE FROM_UNIXTIME(created_time / 1000) < DATE_SUB('2023-12-01', INTERVAL 3 DAY)
SELECT tenant_id, row_id FROM transaction_logs WHERE HOUR(FROM_UNIXTIME(created_time / 1000)) BETWEEN 9 AND 17 AND WEEKDAY(FROM_UNIXTIME(created_time / 1000)) < 5 AND tenant_id = 12
SELECT DATE(FROM_UNIXTIME(created_time / 1000)) AS day, COUNT(DISTINCT buyer_id) AS buyers FROM transaction_logs GROUP BY day ORDER BY day DESC LIMIT 7
SELECT YEAR(FROM_UNIXTIME(created_time / 1000)), COUNT(*) FROM transaction_logs GROUP BY 1
SELECT tenant_id, row_id, DATE_FORMAT(FROM_UNIXTIME(created_time / 1000), '%Y-%m-%d %H:%i:%s') AS ts FROM transaction_logs WHERE tenant_id = 13 ORDER BY tenant_id, row_id LIMIT 10
SELECT DATE(FROM_UNIXTIME(modified_time / 1000)) AS day, COUNT(*) FROM transaction_logs WHERE FROM_UNIXTIME(modified_time / 1000) >= DATE_ADD('2023-11-20', INTERVAL 2 DAY) GROUP BY day ORDER BY day
SELECT tenant_id, row_id, DATE(FROM_UNIXTIME(created_time / 1000)) - INTERVAL 2 HOUR AS shifted FROM transaction_logs WHERE tenant_id = 14
SELECT COUNT(*) FROM transaction_logs WHERE DATE(FROM_UNIXTIME(created_time / 1000)) IN ('2023-11-18', '2023-11-19')
-- UNION / UNION ALL
SELECT seller_nick AS nick FROM transaction_logs WHERE tenant_id = 1 UNION SELECT buyer_nick FROM transaction_logs WHERE tenant_id = 2
SELECT tenant_id, row_id FROM transaction_logs WHERE status = 4 AND tenant_id = 3 UNION ALL SELECT tenant_id, row_id FROM transaction_logs WHERE price > 990
SELECT 'seller' AS party, seller_nick AS nick, COUNT(*) AS cnt FROM transaction_logs GROUP BY seller_nick UNION ALL SELECT 'buyer', buyer_nick, COUNT(*) FROM transaction_logs GROUP BY buyer_nick ORDER BY party, nick
SELECT tenant_id, row_id, price FROM transaction_logs WHERE tenant_id = 1 UNION ALL SELECT tenant_id, row_id, price FROM transaction_logs WHERE tenant_id = 2 ORDER BY price DESC, tenant_id, row_id LIMIT 5
SELECT status FROM transaction_logs WHERE tenant_id = 1 UNION SELECT quantity FROM transaction_logs WHERE tenant_id = 1 UNION SELECT group_id FROM transaction_logs WHERE tenant_id = 1 ORDER BY 1
(SELECT tenant_id, row_id FROM transaction_logs WHERE tenant_id = 5 ORDER BY tenant_id, row_id LIMIT 3) UNION ALL (SELECT tenant_id, row_id FROM transaction_logs WHERE tenant_id = 6 ORDER BY tenant_id, row_id LIMIT 3)
SELECT 'paid' AS kind, COUNT(*) AS n FROM transaction_logs WHERE status = 2 UNION ALL SELECT 'refund', COUNT(*) FROM transaction_logs WHERE status = 4 UNION ALL SELECT 'unknown', COUNT(*) FROM transaction_logs WHERE status IS NULL
SELECT buyer_id FROM transaction_logs WHERE tenant_id = 7 UNION SELECT buyer_id FROM transaction_logs WHERE tenant_id = 8 ORDER BY buyer_id LIMIT 10
SELECT seller_nick, SUM(price) AS total FROM transaction_logs WHERE tenant_id = 1 GROUP BY seller_nick UNION ALL SELECT seller_nick, SUM(price) FROM transaction_logs WHERE tenant_id = 2 GROUP BY seller_nick ORDER BY 2 DESC, 1 LIMIT 5
SELECT buyer_nick FROM transaction_logs WHERE status = 0 UNION ALL SELECT seller_nick FROM transaction_logs WHERE status = 0 AND tenant_id = 9
-- Subqueries
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price > (SELECT AVG(price) FROM transaction_logs WHERE tenant_id = 3) AND tenant_id = 3
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price = (SELECT MAX(price) FROM transaction_logs)
SELECT tenant_id, row_id FROM transaction_logs WHERE buyer_id IN (SELECT buyer_id FROM transaction_logs WHERE status = 4 AND tenant_id = 1) AND tenant_id = 2
SELECT COUNT(*) FROM transaction_logs WHERE buyer_id NOT IN (SELECT buyer_id FROM transaction_logs WHERE tenant_id = 1 AND buyer_id IS NOT NULL)
SELECT COUNT(*) FROM transaction_logs WHERE buyer_id NOT IN (SELECT buyer_id FROM transaction_logs WHERE tenant_id = 1)
SELECT tenant_id, COUNT(*) FROM transaction_logs WHERE EXISTS (SELECT 1 FROM transaction_logs WHERE status = 4) GROUP BY tenant_id
SELECT COUNT(*) FROM transaction_logs WHERE NOT EXISTS (SELECT 1 FROM transaction_logs WHERE tenant_id = 99)
SELECT tenant_id, COUNT(*) AS orders, (SELECT COUNT(*) FROM transaction_logs) AS all_orders FROM transaction_logs GROUP BY tenant_id
SELECT buyer_id, SUM(price * quantity) AS spend FROM transaction_logs WHERE buyer_id IS NOT NULL GROUP BY buyer_id HAVING SUM(price * quantity) > (SELECT SUM(price * quantity) / COUNT(DISTINCT buyer_id) FROM transaction_logs)
SELECT seller_nick, COUNT(*) FROM transaction_logs WHERE seller_nick IN (SELECT buyer_nick FROM transaction_logs WHERE status = 0) GROUP BY seller_nick
SELECT tenant_id, row_id FROM transaction_logs WHERE group_id IN (SELECT group_id FROM transaction_logs GROUP BY group_id HAVING COUNT(*) > 120) AND tenant_id = 4
SELECT tenant_id, row_id, price, (SELECT MAX(price) FROM transaction_logs) - price AS gap FROM transaction_logs WHERE tenant_id = 5
SELECT tenant_id, row_id FROM transaction_logs WHERE tenant_id = (SELECT MIN(tenant_id) FROM transaction_logs WHERE status = 4)
SELECT COUNT(*) FROM transaction_logs WHERE created_time > (SELECT MAX(created_time) FROM transaction_logs WHERE tenant_id = 1) - 86400000
SELECT tenant_id, row_id, price FROM transaction_logs WHERE price > (SELECT AVG(price) FROM transaction_logs) ORDER BY price DESC, tenant_id, row_id LIMIT 10
SELECT status, COUNT(*) FROM transaction_logs WHERE tenant_id IN (SELECT tenant_id FROM transaction_logs WHERE price > 995) GROUP BY status
SELECT tenant_id, SUM(quantity) AS units FROM transaction_logs WHERE buyer_id NOT IN (SELECT buyer_id FROM transaction_logs WHERE status = 4 AND buyer_id IS NOT NULL) GROUP BY tenant_id
-- Aliases, backquotes, lowercase keywords, qualified columns
select t.tenant_id, t.row_id, t.price from transaction_logs t where t.status = 3 and t.quantity > 8
SELECT `tenant_id`, `status`, COUNT(*) AS `cnt` FROM `transaction_logs` GROUP BY `tenant_id`, `status` HAVING `cnt` > 25
SELECT t.seller_nick AS seller, SUM(t.quantity) AS units FROM transaction_logs AS t GROUP BY seller ORDER BY units DESC, seller LIMIT 3
select count(*) as n, sum(quantity) as q from transaction_logs where title like '%shirt%'
SELECT tx.tenant_id, COUNT(DISTINCT tx.seller_nick) AS sellers FROM transaction_logs tx GROUP BY tx.tenant_id ORDER BY tx.tenant_id
select `t`.`buyer_id`, max(`t`.`price`) as `top_price` from `transaction_logs` as `t` where `t`.`buyer_id` is not null group by `t`.`buyer_id` order by `top_price` desc, `t`.`buyer_id` limit 5
SELECT t.tenant_id AS tid, t.row_id AS rid, t.price * t.quantity AS amount FROM transaction_logs t WHERE t.tenant_id = 16 ORDER BY amount DESC, tid, rid LIMIT 8
select distinct t.status as s from transaction_logs t where t.tenant_id in (2, 4, 6) order by s
