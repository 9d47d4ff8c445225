/**
 * Statements the SQL guard must reject and accept, shared by its unit test and by the live test that
 * throws the rejected ones at real databases and checks that nothing changed.
 */
import type { SqlDialect } from '../../src/db/sql-guard.js';

/** [dialect, sql, a part of the expected reason]. */
export const REJECTED: Array<[SqlDialect, string, string]> = [
  // writes
  ['mysql', 'INSERT INTO t VALUES (1)', 'INSERT is a write'],
  ['mysql', 'insert into t select * from u', 'INSERT is a write'],
  ['mysql', 'UPDATE t SET a = 1', 'UPDATE is a write'],
  ['mysql', 'DELETE FROM t WHERE id = 1', 'DELETE is a write'],
  ['mysql', 'REPLACE INTO t VALUES (1)', 'REPLACE is a write'],
  ['sqlite', 'INSERT OR REPLACE INTO t VALUES (1)', 'INSERT is a write'],
  // schema
  ['mysql', 'CREATE TABLE t (a INT)', 'CREATE changes the schema'],
  ['mysql', 'CREATE TEMPORARY TABLE x AS SELECT 1', 'CREATE changes the schema'],
  ['sqlite', 'CREATE TABLE x AS SELECT * FROM t', 'CREATE changes the schema'],
  ['mysql', 'DROP TABLE t', 'DROP changes the schema'],
  ['mysql', 'ALTER TABLE t ADD c INT', 'ALTER changes the schema'],
  ['mysql', 'TRUNCATE TABLE t', 'TRUNCATE deletes every row'],
  ['mysql', 'RENAME TABLE a TO b', 'RENAME changes the schema'],
  // more than one statement
  ['mysql', 'SELECT 1; DROP TABLE t', 'statement 2 of 2: multiple statements'],
  ['mysql', 'SELECT 1; /* hi */ -- there\n DROP TABLE t', 'statement 2 of 2: multiple statements'],
  ['mysql', "SELECT 'a;b' AS x; DROP TABLE t", 'statement 2 of 2: multiple statements'],
  ['mysql', 'SELECT 1; -- done\nDELETE FROM t', 'statement 2 of 2: multiple statements'],
  ['mysql', 'SELECT 1 -- comment\n; DELETE FROM t', 'statement 2 of 2: multiple statements'],
  ['mysql', 'SELECT 1; SELECT 2; SELECT 3', 'statement 2 of 3: multiple statements'],
  ['sqlite', 'BEGIN; COMMIT', 'statement 2 of 2: multiple statements'],
  // MySQL reads `--1` as two minus signs, so the DROP after the ';' is code there (SQLite: a comment).
  ['mysql', 'SELECT 1 --1; DROP TABLE t', 'statement 2 of 2: multiple statements'],
  ['mysql', 'SELECT 1;;', "extra ';'"],
  ['mysql', '; SELECT 1', "empty statement before ';'"],
  // comment tricks
  ['mysql', 'SELECT 1 /*! ; DROP TABLE t */', 'executable comment /*! … */'],
  ['mysql', '/*!50000 DELETE FROM t*/', 'executable comment /*! … */'],
  ['mysql', 'SELECT 1 /*M! ; DROP TABLE t */', 'executable comment /*M! … */'],
  ['mysql', "SELECT /*+ SET_VAR(sql_mode='') */ 1", 'optimizer hint /*+ … */'],
  ['mysql', 'SELECT 1 #\nDELETE FROM t', 'DELETE is a write'],
  ['sqlite', 'SELECT 1 # DELETE FROM t', 'DELETE is a write'],
  ['sqlite', 'SELECT delete FROM t', 'DELETE is a write'],
  ['mysql', 'SELECT 1 /* never closed', 'unterminated /* comment at character 10'],
  ['mysql', '-- only a comment', 'empty statement'],
  ['mysql', '', 'empty statement'],
  ['sqlite', ' \n\t', 'empty statement'],
  // string tricks. With default MySQL settings the first string below is 'a\'; DROP TABLE t; --', one harmless
  // SELECT; under NO_BACKSLASH_ESCAPES it ends after the backslash and DROP TABLE runs. The guard cannot know the
  // server's sql_mode, so a backslash before a closing quote is refused outright.
  ['mysql', String.raw`SELECT 'a\'; DROP TABLE t; --'`, 'backslash-escaped quote'],
  ['mysql', String.raw`SELECT "a\"; DROP TABLE t; --"`, 'backslash-escaped quote'],
  // Here `\\` is an escaped backslash, so MySQL ends the string at the next quote: DROP TABLE is a second statement,
  // and `--'` (no space after the dashes) is not a comment but two minus signs and an unterminated string.
  ['mysql', String.raw`SELECT 'a\\'; DROP TABLE t; --'`, "unterminated '…' at character 31"],
  ['mysql', String.raw`SELECT 'a\\'; DROP TABLE t; -- '`, 'statement 2 of 2: multiple statements'],
  // SQLite has no backslash escapes: the string ends after the backslash.
  ['sqlite', String.raw`SELECT 'a\'; DROP TABLE t; --'`, 'statement 2 of 2: multiple statements'],
  ['mysql', 'SELECT "x"" ; DROP TABLE t', 'unterminated "…" at character 8'],
  ['mysql', "SELECT 'abc", "unterminated '…'"],
  ['sqlite', 'SELECT [abc FROM t', 'unterminated […]'],
  ['mysql', 'SELECT 1\0; DROP TABLE t', 'NUL character'],
  // files, variables, locks
  ['mysql', "SELECT * FROM t INTO OUTFILE '/tmp/x'", 'INTO OUTFILE writes a file'],
  ['mysql', "SELECT * INTO DUMPFILE '/tmp/x' FROM t", 'INTO DUMPFILE writes a file'],
  ['mysql', 'SELECT COUNT(*) INTO @n FROM t', 'INTO @n assigns variables'],
  ['mysql', "SELECT LOAD_FILE('/etc/passwd')", 'LOAD_FILE reads a server file'],
  ['mysql', "LOAD DATA INFILE '/tmp/x' INTO TABLE t", 'LOAD DATA/XML loads a file'],
  ['mysql', 'SELECT * FROM t FOR UPDATE', 'FOR UPDATE takes locks'],
  ['mysql', 'SELECT * FROM t WHERE id = 1 FOR SHARE NOWAIT', 'FOR SHARE takes locks'],
  ['mysql', 'SELECT * FROM t FOR NO KEY UPDATE', 'FOR NO KEY UPDATE takes locks'],
  ['mysql', 'SELECT * FROM t LOCK IN SHARE MODE', 'LOCK IN SHARE MODE takes locks'],
  // MySQL reads `1e0LOCK` as the number 1e0 followed by LOCK.
  ['mysql', 'SELECT * FROM t WHERE id = 1e0LOCK IN SHARE MODE', 'LOCK IN SHARE MODE takes locks'],
  ['mysql', 'LOCK TABLES t READ', 'LOCK takes or releases table locks'],
  ['mysql', 'UNLOCK TABLES', 'UNLOCK takes or releases table locks'],
  ['mysql', "SELECT GET_LOCK('a', 1)", 'GET_LOCK takes or releases a named lock'],
  ['mysql', 'SELECT @a := 1', "':=' assigns a variable"],
  ['mysql', 'SELECT * FROM t PROCEDURE ANALYSE()', 'PROCEDURE ANALYSE runs a procedure'],
  ['mysql', 'SELECT NEXTVAL(s)', 'NEXTVAL advances or sets a sequence'],
  // procedures, settings, privileges, administration
  ['mysql', 'CALL proc()', 'CALL runs a stored procedure'],
  ['mysql', 'SET @x = 1', 'SET changes session or server settings'],
  ['mysql', 'SET GLOBAL max_connections = 1', 'SET changes session or server settings'],
  ['mysql', 'SET SESSION TRANSACTION READ WRITE', 'SET changes session or server settings'],
  ['mysql', "GRANT ALL ON *.* TO 'x'@'%'", 'GRANT changes privileges'],
  ['mysql', "REVOKE ALL ON *.* FROM 'x'@'%'", 'REVOKE changes privileges'],
  ['mysql', 'HANDLER t OPEN', 'HANDLER opens a low-level table cursor'],
  ['mysql', 'DO SLEEP(1)', 'DO evaluates expressions only for their side effects'],
  ['mysql', "PREPARE s FROM 'DELETE FROM t'", 'PREPARE runs dynamic SQL'],
  ['mysql', 'EXECUTE s', 'EXECUTE runs dynamic SQL'],
  ['mysql', 'KILL 1', 'KILL is an administrative command'],
  ['mysql', 'FLUSH TABLES', 'FLUSH is an administrative command'],
  ['mysql', 'SHUTDOWN', 'SHUTDOWN is an administrative command'],
  ['mysql', 'START TRANSACTION', 'START controls transactions'],
  ['mysql', 'ANALYZE TABLE t', 'ANALYZE runs table maintenance'],
  ['mysql', 'USE mysql', 'USE switches the current database'],
  ['mysql', 'TABLE t', 'TABLE is not in the allowed list'],
  ['mysql', 'GET DIAGNOSTICS @n = NUMBER', 'GET is not a read-only query'],
  ['mysql', "'SELECT 1'", "statement starts with 'SELECT 1' instead of a keyword"],
  // writes hidden in CTEs, parentheses and EXPLAIN
  ['mysql', 'WITH x AS (SELECT 1) DELETE FROM t', 'WITH … DELETE: only WITH … SELECT is allowed'],
  ['mysql', 'WITH x AS (SELECT 1) UPDATE t SET a = 1', 'WITH … UPDATE: only WITH … SELECT is allowed'],
  ['sqlite', 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'DELETE is a write'],
  ['mysql', 'WITH x AS SELECT 1', 'could not read the WITH clause'],
  ['mysql', '(DELETE FROM t)', 'parenthesised DELETE'],
  ['mysql', 'EXPLAIN DELETE FROM t', 'EXPLAIN DELETE: only a SELECT may be explained'],
  ['mysql', 'EXPLAIN ANALYZE UPDATE t SET a = 1', 'EXPLAIN UPDATE: only a SELECT may be explained'],
  ['mysql', 'DESC DELETE FROM t', 'DESC DELETE: only a SELECT may be explained'],
  ['mysql', "EXPLAIN SELECT * FROM t INTO OUTFILE '/tmp/x'", 'INTO OUTFILE writes a file'],
  ['sqlite', 'EXPLAIN QUERY PLAN DELETE FROM t', 'EXPLAIN DELETE: only a SELECT may be explained'],
  // SQLite
  ['sqlite', "ATTACH DATABASE '/tmp/x' AS x", 'ATTACH opens or closes a database file'],
  ['sqlite', 'PRAGMA writable_schema = 1', 'PRAGMA statements can change database settings'],
  ['sqlite', "VACUUM INTO '/tmp/x'", 'VACUUM rewrites the database file'],
  ['sqlite', "SELECT load_extension('x')", 'LOAD_EXTENSION loads native code'],
  ['sqlite', "SELECT writefile('/tmp/x', 'data')", 'WRITEFILE writes a file'],
  ['sqlite', 'BEGIN', 'BEGIN controls transactions'],
  ['sqlite', 'SHOW TABLES', 'SHOW is MySQL-only'],
  ['sqlite', 'DESCRIBE t', 'DESCRIBE is MySQL-only'],
];

/** [dialect, sql, the statement handed on]. */
export const ACCEPTED: Array<[SqlDialect, string, string]> = [
  [
    'mysql',
    'SELECT c.name, COUNT(*) AS orders FROM customers c JOIN orders o ON o.customer_id = c.id ' +
      'WHERE o.total > 10 GROUP BY c.name HAVING COUNT(*) > 2 ORDER BY orders DESC LIMIT 10',
    'SELECT c.name, COUNT(*) AS orders FROM customers c JOIN orders o ON o.customer_id = c.id ' +
      'WHERE o.total > 10 GROUP BY c.name HAVING COUNT(*) > 2 ORDER BY orders DESC LIMIT 10',
  ],
  ['mysql', '  select * from t;  \n', 'select * from t'],
  [
    'mysql',
    'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT SUM(i) FROM n;',
    'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT SUM(i) FROM n',
  ],
  [
    'sqlite',
    'WITH a AS MATERIALIZED (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM b',
    'WITH a AS MATERIALIZED (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM b',
  ],
  ['mysql', 'SELECT id FROM a UNION SELECT id FROM b', 'SELECT id FROM a UNION SELECT id FROM b'],
  [
    'mysql',
    'SELECT * FROM t WHERE id IN (SELECT t_id FROM u WHERE u.flag = 1)',
    'SELECT * FROM t WHERE id IN (SELECT t_id FROM u WHERE u.flag = 1)',
  ],
  [
    'mysql',
    'SELECT region, SUM(amount) OVER (PARTITION BY region ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM s',
    'SELECT region, SUM(amount) OVER (PARTITION BY region ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM s',
  ],
  [
    'mysql',
    "SELECT CASE WHEN status = 'active' THEN 1 ELSE 0 END AS live, start, action FROM subscriptions",
    "SELECT CASE WHEN status = 'active' THEN 1 ELSE 0 END AS live, start, action FROM subscriptions",
  ],
  ['mysql', "SELECT 'DROP TABLE x; --' AS note;", "SELECT 'DROP TABLE x; --' AS note"],
  ['mysql', 'SELECT `delete`, `update`, `a``b` FROM `insert`', 'SELECT `delete`, `update`, `a``b` FROM `insert`'],
  [
    'mysql',
    String.raw`SELECT "say ""hi""", 'it''s', 'C:\\', "tab\there"`,
    String.raw`SELECT "say ""hi""", 'it''s', 'C:\\', "tab\there"`,
  ],
  ['mysql', '-- top\n/* block */ SELECT 1 # trailing', 'SELECT 1'],
  ['mysql', 'SELECT 1; -- done', 'SELECT 1'],
  ['sqlite', 'SELECT 1; /* done */', 'SELECT 1'],
  [
    'mysql',
    "SELECT REPLACE(name, 'a', 'b'), INSERT('abc', 1, 1, 'x'), TRUNCATE(price, 1) FROM t",
    "SELECT REPLACE(name, 'a', 'b'), INSERT('abc', 1, 1, 'x'), TRUNCATE(price, 1) FROM t",
  ],
  [
    'mysql',
    'SELECT CAST(x AS CHAR CHARACTER SET utf8mb4) FROM t',
    'SELECT CAST(x AS CHAR CHARACTER SET utf8mb4) FROM t',
  ],
  [
    'mysql',
    'SELECT do, handler, flush, pragma, attach, vacuum FROM t',
    'SELECT do, handler, flush, pragma, attach, vacuum FROM t',
  ],
  [
    'mysql',
    'SELECT SLEEP(1), BENCHMARK(10, MD5(1)), @@version, @rows',
    'SELECT SLEEP(1), BENCHMARK(10, MD5(1)), @@version, @rows',
  ],
  ['mysql', 'SELECT * FROM t FOR SYSTEM_TIME ALL', 'SELECT * FROM t FOR SYSTEM_TIME ALL'],
  ['mysql', 'SHOW TABLES', 'SHOW TABLES'],
  ['mysql', 'SHOW COLUMNS FROM t;', 'SHOW COLUMNS FROM t'],
  ['mysql', 'SHOW CREATE TABLE t', 'SHOW CREATE TABLE t'],
  ['mysql', 'SHOW CHARACTER SET', 'SHOW CHARACTER SET'],
  ['mysql', 'DESCRIBE t', 'DESCRIBE t'],
  ['mysql', 'desc `order`', 'desc `order`'],
  ['mysql', 'EXPLAIN SELECT * FROM t WHERE id = 1', 'EXPLAIN SELECT * FROM t WHERE id = 1'],
  ['mysql', 'EXPLAIN FORMAT=JSON SELECT * FROM t', 'EXPLAIN FORMAT=JSON SELECT * FROM t'],
  [
    'mysql',
    'EXPLAIN ANALYZE WITH x AS (SELECT 1) SELECT * FROM x',
    'EXPLAIN ANALYZE WITH x AS (SELECT 1) SELECT * FROM x',
  ],
  ['mysql', '(SELECT 1) UNION (SELECT 2);', '(SELECT 1) UNION (SELECT 2)'],
  [
    'sqlite',
    "SELECT name FROM sqlite_master WHERE type = 'table'",
    "SELECT name FROM sqlite_master WHERE type = 'table'",
  ],
  ['sqlite', "SELECT * FROM pragma_table_info('t')", "SELECT * FROM pragma_table_info('t')"],
  ['sqlite', 'EXPLAIN QUERY PLAN SELECT * FROM t', 'EXPLAIN QUERY PLAN SELECT * FROM t'],
  ['sqlite', 'SELECT [order], "group", `key` FROM [my table]', 'SELECT [order], "group", `key` FROM [my table]'],
  ['sqlite', "SELECT replace(name, 'a', 'b') AS call FROM t", "SELECT replace(name, 'a', 'b') AS call FROM t"],
  // MySQL-only keywords are ordinary names in SQLite.
  ['sqlite', 'SELECT lock, grant FROM t WHERE lock IN (1, 2)', 'SELECT lock, grant FROM t WHERE lock IN (1, 2)'],
  // Only code in MySQL: in SQLite `/*! … */` is a plain comment, `--1…` a comment and `\` an ordinary character.
  ['sqlite', 'SELECT 1 /*! ; DROP TABLE t */', 'SELECT 1'],
  ['sqlite', 'SELECT 1 --1; DROP TABLE t', 'SELECT 1'],
  ['sqlite', String.raw`SELECT 'a\'`, String.raw`SELECT 'a\'`],
];
