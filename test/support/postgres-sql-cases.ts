/**
 * PostgreSQL statements the SQL guard must refuse and allow, shared by its unit test and by live tests that run
 * them on a real server. Every statement is written against POSTGRES_FIXTURE with the scope POSTGRES_SCHEMAS (the
 * connection's own schema `public`, and `sales` from DATABASE_SCHEMAS_<NAME>); `other` is a schema out of scope.
 *
 * Each hostile case says what it does on a superuser with the guard off (checked by hand on PostgreSQL 15, each in
 * a transaction rolled back afterwards, on a database holding just the fixture), so a live test can show that the
 * guard is what stops it: most read what they must not or act, and the few that fail there fail for another reason
 * than permission (a cursor or extension that is not there, a MySQL habit, a U& name spelt out).
 */

/** The scope every case is checked with: the connection's own schema first, then DATABASE_SCHEMAS_<NAME>. */
export const POSTGRES_SCHEMAS = ['public', 'sales'] as const;

/**
 * The objects the cases name, created by a superuser in an empty database. `other.secrets` and
 * `other.reveal()` are out of scope; `public.touch_orders()` writes; `invoice_numbers` is a sequence.
 */
export const POSTGRES_FIXTURE: readonly string[] = [
  'CREATE SCHEMA sales',
  'CREATE SCHEMA other',
  `CREATE TABLE public.customers (id int PRIMARY KEY, name text NOT NULL, email text, region text NOT NULL,
     signed_up date NOT NULL, referrer_id int REFERENCES public.customers (id))`,
  `CREATE TABLE public.orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES public.customers (id),
     amount numeric(10, 2) NOT NULL, status text NOT NULL, placed timestamptz NOT NULL, payload jsonb, tags text[])`,
  'CREATE INDEX orders_placed ON public.orders (placed)',
  'CREATE TABLE sales.targets (region text, month date, target numeric(10, 2), PRIMARY KEY (region, month))',
  'CREATE TABLE other.secrets (id int, secret text)',
  'CREATE SEQUENCE public.invoice_numbers',
  `CREATE MATERIALIZED VIEW public.order_totals AS
     SELECT customer_id, sum(amount) AS total FROM public.orders GROUP BY customer_id`,
  'CREATE PROCEDURE public.touch_orders() LANGUAGE sql AS $$UPDATE public.orders SET amount = amount$$',
  'CREATE FUNCTION other.reveal() RETURNS text LANGUAGE sql AS $$SELECT secret FROM other.secrets LIMIT 1$$',
  "COMMENT ON TABLE public.orders IS 'One row per order'",
  `INSERT INTO public.customers VALUES (1, 'Ann', 'ann@example.com', 'north', '2024-01-05', NULL),
     (2, 'Bob', 'bob@example.org', 'south', '2024-02-10', 1), (3, 'Cleo', NULL, 'north', '2024-03-15', 2),
     (4, 'Dan', 'dan@example.com', 'east', '2024-03-20', 1)`,
  `INSERT INTO public.orders VALUES
     (1, 1, 120.50, 'paid', '2024-01-10 10:00+00', '{"channel": "web", "items": [{"sku": "A1", "qty": 2}]}', '{promo,first}'),
     (2, 1, 35.00, 'paid', '2024-02-03 16:30+00', '{"channel": "shop", "items": [{"sku": "B2", "qty": 1}]}', '{}'),
     (3, 2, 80.00, 'refunded', '2024-02-20 09:15+00', '{"channel": "web", "items": [{"sku": "A1", "qty": 1}]}', '{promo}'),
     (4, 3, 15.25, 'paid', '2024-03-16 12:00+00', '{"channel": "web", "items": []}', '{first}'),
     (5, 4, 210.00, 'pending', '2024-03-28 18:45+00', '{"channel": "phone", "items": [{"sku": "C3", "qty": 5}]}', NULL)`,
  `INSERT INTO sales.targets VALUES ('north', '2024-01-01', 100), ('north', '2024-02-01', 120),
     ('south', '2024-02-01', 90), ('east', '2024-03-01', 150)`,
  "INSERT INTO other.secrets VALUES (1, 'do not read')",
  'REFRESH MATERIALIZED VIEW public.order_totals',
  // column statistics, a large object and a user mapping with a password, for the catalogs that show them
  'ANALYZE public.orders',
  "SELECT lo_from_bytea(0, 'a large object')",
  'CREATE FOREIGN DATA WRAPPER tally_wrapper',
  'CREATE SERVER tally_server FOREIGN DATA WRAPPER tally_wrapper',
  "CREATE USER MAPPING FOR PUBLIC SERVER tally_server OPTIONS (user 'remote', password 'hunter2')",
];

/**
 * How a refusal says what is allowed: `statement`, the kinds of statement ("Only one read-only statement is
 * allowed: …"); `schema`, the schemas and metadata that may be read ("Only the tables of the public, sales
 * schemas …").
 */
export type PostgresAllowed = 'statement' | 'schema';

/**
 * What the statement does on a superuser with the guard off: `reads` returns rows it must not (of another schema
 * or a catalog, a file, a setting); `runs` succeeds, its harm being an effect (a write, a lock, a setting, a signal,
 * a wait, WAL; undone by the transaction where it can be) or a read that finds no rows in the fixture; `fails` is
 * an error there too.
 */
export type PostgresUnguarded = 'reads' | 'runs' | 'fails';

export type PostgresRefusal = [sql: string, reason: string, allowed: PostgresAllowed, unguarded: PostgresUnguarded];

/** Cases refused with `allowed` and doing `unguarded` on a superuser: [sql, a part of the reason]. */
function cases(
  allowed: PostgresAllowed,
  unguarded: PostgresUnguarded,
  rows: Array<[sql: string, reason: string]>,
): PostgresRefusal[] {
  return rows.map(([sql, reason]) => [sql, reason, allowed, unguarded]);
}

/** The same for statements all refused for one reason. */
function alike(allowed: PostgresAllowed, unguarded: PostgresUnguarded, reason: string, sqls: string[]) {
  return cases(
    allowed,
    unguarded,
    sqls.map((sql): [string, string] => [sql, reason]),
  );
}

/** Hostile statements and a part of the reason each is refused with. */
export const POSTGRES_REFUSED: PostgresRefusal[] = [
  // writes and schema changes, also inside CTEs and EXPLAIN ANALYZE (which runs its statement)
  ...cases('statement', 'runs', [
    [
      "INSERT INTO orders (id, customer_id, amount, status, placed) VALUES (9, 1, 1, 'paid', now())",
      'INSERT is a write',
    ],
    ["UPDATE orders SET status = 'refunded'", 'UPDATE is a write'],
    ['DELETE FROM orders', 'DELETE is a write'],
    ['MERGE INTO orders o USING customers c ON o.customer_id = c.id WHEN MATCHED THEN DELETE', 'MERGE is a write'],
    ['TRUNCATE orders CASCADE', 'TRUNCATE deletes every row'],
    ['CREATE TABLE stolen AS SELECT rolname, rolpassword FROM pg_authid', 'CREATE changes the schema'],
    ['DROP TABLE orders CASCADE', 'DROP changes the schema'],
    ['ALTER TABLE orders ADD COLUMN note text', 'ALTER changes the schema'],
    ["COMMENT ON TABLE orders IS 'x'", 'COMMENT changes comments'],
    ['GRANT SELECT ON other.secrets TO PUBLIC', 'GRANT changes privileges'],
    ['REVOKE SELECT ON orders FROM PUBLIC', 'REVOKE changes privileges'],
    ['WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone', 'DELETE is a write'],
    ["WITH moved AS (UPDATE orders SET status = 'void' RETURNING id) SELECT * FROM moved", 'UPDATE is a write'],
    ["WITH added AS (INSERT INTO sales.targets VALUES ('west', now(), 1) RETURNING 1) SELECT 1", 'INSERT is a write'],
    ["WITH x AS (SELECT 1) UPDATE orders SET status = 'void'", 'WITH … UPDATE: only WITH … SELECT'],
    ['EXPLAIN ANALYZE DELETE FROM orders', 'EXPLAIN DELETE: only a SELECT may be explained'],
    ["EXPLAIN (ANALYZE, FORMAT JSON) UPDATE orders SET status = 'void'", 'EXPLAIN UPDATE: only a SELECT'],
    ['EXPLAIN (ANALYZE) CREATE TABLE stolen AS SELECT * FROM other.secrets', 'EXPLAIN CREATE: only a SELECT'],
    ['SELECT * INTO stolen FROM orders', 'SELECT … INTO creates a table'],
    ['SELECT 1; DROP TABLE orders CASCADE', 'statement 2 of 2: multiple statements'],
    ['SELECT 1; -- done\nDELETE FROM orders', 'statement 2 of 2: multiple statements'],
    // locks
    ['SELECT * FROM orders FOR UPDATE', 'FOR UPDATE takes locks'],
    ['SELECT * FROM orders FOR NO KEY UPDATE NOWAIT', 'FOR NO KEY UPDATE takes locks'],
    ['SELECT * FROM orders FOR SHARE OF orders', 'FOR SHARE takes locks'],
    ['SELECT * FROM orders FOR KEY SHARE SKIP LOCKED', 'FOR KEY SHARE takes locks'],
    ['LOCK TABLE orders IN ACCESS EXCLUSIVE MODE', 'LOCK takes table locks'],
    // statements beyond a query: files and programs, code, sessions, settings, cursors, maintenance, transactions
    ["COPY orders TO '/dev/null'", 'COPY reads or writes server files'],
    ["COPY (SELECT 1) TO PROGRAM 'cat > /dev/null'", 'COPY reads or writes server files'],
    ["COPY sales.targets FROM PROGRAM 'echo west,2024-01-01,1' WITH (FORMAT csv)", 'COPY reads or writes'],
    ['DO $$BEGIN PERFORM pg_sleep(0); END$$', 'DO runs an anonymous code block'],
    ['CALL touch_orders()', 'CALL runs a procedure'],
    ['LISTEN alerts', 'LISTEN sends or waits for notifications'],
    ["NOTIFY alerts, 'x'", 'NOTIFY sends or waits for notifications'],
    ['UNLISTEN *', 'UNLISTEN sends or waits for notifications'],
    ['SET search_path = other, public', 'SET changes session settings'],
    ['SET ROLE NONE', 'SET changes session settings'],
    ['SET SESSION AUTHORIZATION DEFAULT', 'SET changes session settings'],
    ['SET LOCAL statement_timeout = 0', 'SET changes session settings'],
    ['RESET ALL', 'RESET changes session settings'],
    ['DISCARD ALL', 'DISCARD resets session state'],
    ['PREPARE leak AS SELECT rolpassword FROM pg_authid', 'PREPARE runs a prepared statement'],
    ['DEALLOCATE ALL', 'DEALLOCATE runs a prepared statement'],
    ['DECLARE leak CURSOR WITH HOLD FOR SELECT rolpassword FROM pg_authid', 'DECLARE opens, reads or closes a cursor'],
    ['CLOSE ALL', 'CLOSE opens, reads or closes a cursor'],
    ['VACUUM orders', 'VACUUM runs table maintenance'],
    ['ANALYZE orders', 'ANALYZE runs table maintenance'],
    ['CLUSTER orders USING orders_pkey', 'CLUSTER runs table maintenance'],
    ['REINDEX TABLE orders', 'REINDEX runs table maintenance'],
    ['CHECKPOINT', 'CHECKPOINT runs table maintenance'],
    ['REFRESH MATERIALIZED VIEW order_totals', 'REFRESH MATERIALIZED VIEW rewrites'],
    ["LOAD 'auto_explain'", 'LOAD loads a shared library'],
    ['BEGIN', 'BEGIN controls transactions'],
    ['START TRANSACTION READ WRITE', 'START controls transactions'],
    ['COMMIT', 'COMMIT controls transactions'],
    ['ABORT', 'ABORT controls transactions'],
  ]),
  ...cases('statement', 'fails', [
    ['EXECUTE leak', 'EXECUTE runs a prepared statement'],
    ['FETCH ALL FROM leak', 'FETCH opens, reads or closes a cursor'],
    ['MOVE NEXT IN leak', 'MOVE opens, reads or closes a cursor'],
    ['IMPORT FOREIGN SCHEMA other FROM SERVER tally_server INTO public', 'IMPORT FOREIGN SCHEMA creates'],
    ['EXPLAIN (COSTS OFF, pg_read_file) SELECT 1', 'EXPLAIN option pg_read_file is not one of'],
    ['DESCRIBE orders', 'DESCRIBE is MySQL-only'],
  ]),
  // TABLE and VALUES read by paths the guard does not follow; SHOW beyond a few harmless settings
  ...cases('statement', 'reads', [
    ['TABLE pg_authid', 'TABLE is not in the allowed list'],
    ["VALUES (pg_read_file('/etc/hostname'))", 'VALUES is not in the allowed list'],
    ["SELECT 1, 'x' UNION ALL TABLE other.secrets", 'TABLE t is not in the allowed list'],
    ['WITH s AS (TABLE other.secrets) SELECT * FROM s', 'TABLE t is not in the allowed list'],
    ['SHOW data_directory', 'SHOW data_directory: data_directory is a server setting'],
    ['SHOW hba_file', 'SHOW hba_file: hba_file is a server setting'],
    ['SHOW ALL', 'SHOW ALL shows every server setting'],
  ]),
  // lexing as the server lexes: `--` ends at '\r' too, /* comments */ nest, E'' escapes, $$ strings, names with $.
  // A plain string's backslash is ordinary (standard_conforming_strings), unless the string continues an E'' one.
  ...cases('statement', 'reads', [
    ["SELECT 1 -- note\r, pg_read_file('/etc/hostname')", 'pg_read_file reads a server file'],
    ["SELECT 1 /* outer /* inner */ ' */, pg_read_file('/etc/hostname') -- '", 'pg_read_file reads a server file'],
    ["SELECT 1 /* /* */ $$ */, pg_ls_dir('.') -- $$", 'pg_ls_dir lists a server directory'],
    [String.raw`SELECT E'it\'s', pg_read_file('/etc/hostname')`, 'pg_read_file reads a server file'],
    [String.raw`SELECT 'a\', pg_read_file('/etc/hostname') -- '`, 'backslash before a quote'],
    [`SELECT E'a' -- continued\n${String.raw`'\'', pg_read_file('/etc/hostname') --'`}`, 'backslash before a quote'],
    ["SELECT $$ $$, pg_ls_dir('.'), $$ $$", 'pg_ls_dir lists a server directory'],
    ["SELECT $a$ $b$ $a$, pg_ls_dir('.'), $b$ x $b$", 'pg_ls_dir lists a server directory'],
    ["SELECT $q$ ' $q$, pg_ls_dir('.') -- '", 'pg_ls_dir lists a server directory'],
    ["SELECT 1 AS a$$, pg_ls_dir('.') AS b$$", 'pg_ls_dir lists a server directory'],
    // U& escapes could spell any name
    [String.raw`SELECT rolpassword FROM U&"p\0067_authid"`, 'U&"…" unicode escapes'],
    [String.raw`SELECT pg_catalog.pg_read_file(U&'/etc/h\006fstname')`, "U&'…' unicode escapes"],
    // calls: quoted, schema-qualified, spaced, commented, in any case
    [`SELECT "pg_read_file"('/etc/hostname')`, 'the quoted name "pg_read_file" is called as a function'],
    [`SELECT pg_catalog."pg_ls_dir"('.')`, 'is called as a function'],
    ["SELECT pg_catalog.pg_read_file('/etc/hostname')", 'pg_read_file reads a server file'],
    ["SELECT pg_catalog . pg_ls_dir ( '.' )", 'pg_ls_dir lists a server directory'],
    ["SELECT pg_catalog/* a */.pg_read_file/* b */('/etc/hostname')", 'pg_read_file reads a server file'],
    ["SELECT PG_READ_FILE('/etc/hostname')", 'pg_read_file reads a server file'],
    // set-returning functions in FROM, LATERAL and ROWS FROM
    ["SELECT * FROM orders o, LATERAL pg_ls_dir('.') AS f(name)", 'pg_ls_dir lists a server directory'],
    ["SELECT * FROM ROWS FROM (pg_ls_dir('.')) AS f(name)", 'pg_ls_dir lists a server directory'],
    ["SELECT f.* FROM generate_series(1, 2) g, pg_stat_file('PG_VERSION') f", 'pg_stat_file reads a server file'],
    ['SELECT * FROM pg_ls_waldir()', 'pg_ls_waldir lists a server directory'],
  ]),
  ...cases('statement', 'runs', [[`SELECT "set_config"('search_path', 'other', false)`, 'is called as a function']]),
  ...cases('statement', 'fails', [
    ['SELECT $1', 'parameter $1'],
    ['SELECT `id` FROM orders', 'backtick'],
  ]),
  // catalogs, qualified or not (pg_catalog comes first on the search_path), in any case and spacing; CTEs and
  // aliases named like tables; joins, subqueries and LATERAL
  ...alike('schema', 'reads', 'pg_authid is a system catalog', [
    'SELECT rolname, rolpassword FROM pg_authid',
    'SELECT * FROM PG_AUTHID',
    String.raw`SELECT E'\'', (SELECT rolpassword FROM pg_authid LIMIT 1)`,
    'WITH orders AS (SELECT rolname AS status FROM pg_authid) SELECT * FROM orders',
    'SELECT a.rolpassword FROM orders o, pg_authid a',
    'SELECT pg_class.rolpassword FROM pg_authid pg_class',
    'SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_authid WHERE rolsuper)',
  ]),
  ...alike('schema', 'reads', 'pg_catalog.pg_authid is a system catalog', [
    'SELECT * FROM "pg_catalog"."pg_authid"',
    'SELECT * FROM pg_catalog /* hi */ . pg_authid',
    'SELECT * FROM pg_catalog -- hi\n.pg_authid',
  ]),
  ...alike('schema', 'reads', 'pg_shadow is a system catalog', [
    'SELECT usename, passwd FROM pg_catalog.pg_shadow',
    'SELECT * FROM Pg_Catalog.Pg_Shadow',
    'WITH pg_class AS (SELECT * FROM pg_shadow) SELECT * FROM pg_class',
    'SELECT o.id, s.* FROM orders o CROSS JOIN LATERAL (SELECT usename, passwd FROM pg_shadow) s',
    'SELECT (SELECT passwd FROM pg_shadow LIMIT 1) AS hash',
  ]),
  ...alike('schema', 'reads', 'is a system catalog outside the metadata allowed', [
    'SELECT rolname, rolsuper FROM pg_roles',
    'SELECT usename, usesuper FROM pg_user',
    'SELECT usename, query FROM pg_stat_activity',
    'SELECT relname, n_live_tup FROM pg_stat_user_tables',
    'SELECT * FROM pg_statio_all_tables',
    'SELECT name, setting FROM pg_settings',
    'SELECT * FROM pg_file_settings',
    'SELECT * FROM pg_hba_file_rules',
    'SELECT srvname, umoptions FROM pg_user_mappings',
    "SELECT most_common_vals FROM pg_stats WHERE tablename = 'orders'",
    'SELECT * FROM pg_statistic',
    'SELECT * FROM pg_largeobject',
    'SELECT datname FROM pg_database',
    'SELECT * FROM pg_locks',
  ]),
  ...cases('schema', 'runs', [['SELECT chunk_data FROM pg_toast.pg_toast_1260', 'pg_toast is a system schema']]),
  // schemas out of scope, however the name is written; functions of other schemas
  ...alike('schema', 'reads', 'other.secrets is in another schema', [
    'SELECT * FROM other.secrets',
    'SELECT * FROM "other"."secrets"',
    'SELECT * FROM OTHER.Secrets',
    'SELECT secret FROM other /* x */ . secrets',
    'SELECT customer_id FROM orders UNION SELECT id FROM other.secrets',
    'SELECT * FROM public.orders o JOIN other.secrets s ON s.id = o.id',
    'SELECT * FROM orders o JOIN (customers c JOIN other.secrets s ON s.id = c.id) ON c.id = o.customer_id',
  ]),
  ...cases('schema', 'reads', [['SELECT other.reveal()', 'other.reveal(…) calls a function of another schema']]),
  ...cases('schema', 'fails', [['SELECT * FROM "Sales".targets', 'Sales.targets is in another schema']]),
  // information_schema beyond table, column and key metadata
  ...cases('schema', 'reads', [
    ['SELECT * FROM information_schema.user_mapping_options', 'information_schema.user_mapping_options is not'],
    ['SELECT * FROM information_schema.role_table_grants', 'information_schema.role_table_grants is not'],
    ['SELECT schema_name FROM information_schema.schemata', 'information_schema.schemata is not'],
    [
      `SELECT c.column_name, r.routine_definition FROM information_schema.columns c
         JOIN information_schema.routines r ON r.routine_schema = c.table_schema WHERE r.routine_schema = 'other'`,
      'information_schema.routines is not',
    ],
  ]),
  // functions that reach files, other sessions, the server, sequences, or run SQL given as a string
  ...cases('statement', 'reads', [
    ["SELECT pg_read_binary_file('/etc/hostname')", 'pg_read_binary_file reads a server file'],
    ["SELECT pg_stat_file('PG_VERSION')", 'pg_stat_file reads a server file'],
    ['SELECT lo_get(oid) FROM pg_largeobject_metadata', 'lo_get reads or writes large objects'],
    ["SELECT current_setting('data_directory')", "current_setting('data_directory') reads a server setting"],
    ["SELECT current_setting('config_file'), current_setting('hba_file')", "current_setting('config_file')"],
    ["SELECT current_setting('log_directory')", "current_setting('log_directory')"],
    ["SELECT current_setting(name) FROM (SELECT 'data_directory' AS name) s", 'current_setting(name)'],
    ["SELECT query_to_xml('SELECT rolname, rolpassword FROM pg_authid', true, false, '')", 'query_to_xml runs the SQL'],
    ["SELECT query_to_xml_and_xmlschema('TABLE other.secrets', true, false, '')", 'query_to_xml_and_xmlschema runs'],
    ["SELECT table_to_xml('pg_authid', true, false, '')", 'table_to_xml runs the SQL'],
    ["SELECT schema_to_xml('other', true, false, '')", 'schema_to_xml runs the SQL'],
    ["SELECT database_to_xml(true, false, '')", 'database_to_xml runs the SQL'],
    ["SELECT * FROM ts_stat('SELECT to_tsvector(secret) FROM other.secrets')", 'ts_stat runs the SQL'],
    [
      "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, plainto_tsquery(secret) FROM other.secrets')",
      'ts_rewrite(query, select) runs the SQL',
    ],
    ['SELECT inet_server_addr(), inet_server_port()', 'inet_server_addr tells where the server listens'],
    ['SELECT * FROM pg_stat_get_activity(NULL)', 'pg_stat_get_activity shows other sessions'],
    ['SELECT * FROM pg_show_all_settings()', 'pg_show_all_settings shows server settings'],
    ["SELECT pg_relation_filepath('orders')", 'pg_relation_filepath shows where tables are stored'],
    ['SELECT pg_postmaster_start_time()', 'pg_postmaster_start_time is not one of the pg_ functions'],
  ]),
  ...cases('statement', 'runs', [
    ["SELECT lo_import('/etc/hostname')", 'lo_import reads or writes large objects'],
    ["SELECT lo_export(oid, '/dev/null') FROM pg_largeobject_metadata", 'lo_export reads or writes large objects'],
    ['SELECT pg_sleep(5)', 'pg_sleep(5) holds a connection for nothing'],
    ['SELECT pg_sleep(1 + 1)', 'pg_sleep(1+1) holds a connection for nothing'],
    ["SELECT pg_sleep_for('5 seconds')", 'pg_sleep_for holds a connection for nothing'],
    ["SELECT pg_sleep_until(now() + interval '5 seconds')", 'pg_sleep_until holds a connection'],
    ['SELECT pg_terminate_backend(2147483647)', 'pg_terminate_backend stops another session'],
    ['SELECT pg_cancel_backend(2147483647)', 'pg_cancel_backend stops another session'],
    ['SELECT pg_reload_conf()', 'pg_reload_conf acts on the server'],
    ['SELECT pg_rotate_logfile()', 'pg_rotate_logfile acts on the server'],
    ['SELECT pg_advisory_lock(42)', 'pg_advisory_lock takes or releases an advisory lock'],
    ['SELECT pg_try_advisory_xact_lock(42)', 'pg_try_advisory_xact_lock takes or releases'],
    ["SELECT pg_notify('alerts', 'x')", 'pg_notify sends a notification'],
    ["SELECT set_config('search_path', 'other', false)", 'set_config changes a session setting'],
    ["SELECT nextval('invoice_numbers')", 'nextval advances, sets or reads a sequence'],
    ["SELECT setval('invoice_numbers', 1000)", 'setval advances, sets or reads a sequence'],
    ["SELECT pg_create_physical_replication_slot('tally_guard_slot', true, true)", 'pg_create_physical_replication'],
    ['SELECT pg_export_snapshot()', 'pg_export_snapshot controls replication'],
    ['SELECT pg_switch_wal()', 'pg_switch_wal controls replication'],
    ["SELECT pg_logical_emit_message(false, 'tally', 'x')", 'pg_logical_emit_message controls replication'],
    ["SELECT pg_backup_start('tally')", 'pg_backup_start controls replication'],
  ]),
  ...cases('statement', 'fails', [
    ["SELECT cursor_to_xml('leak', 10, true, false, '')", 'cursor_to_xml runs the SQL'],
    ["SELECT * FROM dblink('', 'SELECT rolpassword FROM pg_authid') AS t(hash text)", 'dblink connects'],
    ["SELECT get_raw_page('pg_authid', 0)", 'get_raw_page reads raw pages'],
  ]),
];

/**
 * Legitimate analysis queries on the fixture: each must be allowed unchanged and run on the server (on the
 * connection's schema, `public`).
 */
export const POSTGRES_ALLOWED: string[] = [
  `SELECT c.name, count(*) AS orders, sum(o.amount) AS revenue FROM customers c JOIN orders o ON o.customer_id = c.id
     GROUP BY c.name HAVING count(*) >= 1 ORDER BY revenue DESC LIMIT 10`,
  `SELECT date_trunc('month', placed) AS month, count(*) FILTER (WHERE status = 'paid') AS paid,
     count(*) FILTER (WHERE status = 'refunded') AS refunded FROM orders GROUP BY 1 ORDER BY 1`,
  `SELECT customer_id, placed, amount, sum(amount) OVER (PARTITION BY customer_id ORDER BY placed) AS running,
     rank() OVER (ORDER BY amount DESC) AS size_rank, lag(amount) OVER (PARTITION BY customer_id ORDER BY placed) AS previous
     FROM orders`,
  'SELECT DISTINCT ON (customer_id) customer_id, id, placed FROM orders ORDER BY customer_id, placed DESC',
  `SELECT d::date AS day, count(o.id) AS orders FROM generate_series('2024-01-01'::date, '2024-03-31'::date,
     interval '1 day') AS d LEFT JOIN orders o ON o.placed::date = d::date GROUP BY 1 ORDER BY 1`,
  `WITH RECURSIVE referrals AS (SELECT id, name, referrer_id, 0 AS depth FROM customers WHERE referrer_id IS NULL
     UNION ALL SELECT c.id, c.name, c.referrer_id, r.depth + 1 FROM customers c JOIN referrals r ON c.referrer_id = r.id)
     SELECT * FROM referrals ORDER BY depth, id`,
  `SELECT c.name, last_orders.id, last_orders.amount FROM customers c CROSS JOIN LATERAL
     (SELECT o.id, o.amount FROM orders o WHERE o.customer_id = c.id ORDER BY o.placed DESC LIMIT 2) AS last_orders`,
  `SELECT o.id, item->>'sku' AS sku, (item->>'qty')::int AS qty FROM orders o,
     LATERAL jsonb_array_elements(o.payload->'items') AS item WHERE o.payload @> '{"channel": "web"}'`,
  `SELECT payload->>'channel' AS channel, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median,
     percentile_disc(0.9) WITHIN GROUP (ORDER BY amount) AS p90 FROM orders GROUP BY 1`,
  `SELECT id, COALESCE(email, '(none)') AS email, NULLIF(region, 'east') AS region,
     CASE WHEN signed_up < '2024-02-01' THEN 'early' ELSE 'late' END AS cohort FROM customers`,
  `SELECT region, string_agg(name, ', ' ORDER BY name) AS names, array_agg(id ORDER BY id) AS ids
     FROM customers GROUP BY region`,
  `SELECT id, placed + interval '30 days' AS due, EXTRACT(EPOCH FROM (now() - placed)) / 86400 AS age_days,
     EXTRACT(dow FROM placed) AS weekday FROM orders`,
  `SELECT name, email FROM customers WHERE name ILIKE 'a%' OR email ~* '@example\\.org$' OR name !~ '^[A-C]'`,
  `SELECT column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = 'orders' ORDER BY ordinal_position`,
  `SELECT tc.constraint_name, kcu.column_name FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name
     WHERE tc.table_schema = 'public' AND tc.constraint_type = 'FOREIGN KEY'`,
  `SELECT c.relname, c.reltuples, obj_description(c.oid, 'pg_class') AS comment FROM pg_catalog.pg_class c
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`,
  `SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, pg_get_expr(d.adbin, d.adrelid) AS default_value
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = 'public.orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
  "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
  "SELECT pg_size_pretty(pg_total_relation_size('orders')) AS size, pg_typeof(amount) FROM orders LIMIT 1",
  `SELECT t.region, t.month, t.target, coalesce(sum(o.amount), 0) AS actual FROM sales.targets t
     LEFT JOIN customers c ON c.region = t.region LEFT JOIN orders o ON o.customer_id = c.id
       AND date_trunc('month', o.placed) = t.month GROUP BY 1, 2, 3 ORDER BY 1, 2`,
  `SELECT id, tags, cardinality(tags) AS n FROM orders WHERE tags && ARRAY['promo'] OR 'first' = ANY(tags)`,
  "SELECT status, round(avg(amount)::numeric, 2), to_char(max(placed), 'YYYY-MM-DD') FROM orders GROUP BY status",
  "SELECT * FROM orders WHERE status IS DISTINCT FROM 'paid' AND amount BETWEEN 10 AND 500",
  `SELECT x.n, x.label FROM (VALUES (1, 'one'), (2, 'two')) AS x(n, label)
     JOIN unnest(ARRAY[1, 2, 3]) WITH ORDINALITY AS u(v, position) ON u.v = x.n`,
  "SELECT E'tab\\there', $$it's$$, $fmt$a $$ b$fmt$, 'it''s', B'1010'::int, X'1F'::int",
  "SELECT id, amount -- the order's amount\n FROM orders /* a /* nested */ comment */ WHERE amount > 20",
  'EXPLAIN SELECT * FROM orders WHERE customer_id = 1',
  'EXPLAIN (ANALYZE, FORMAT JSON) SELECT customer_id, count(*) FROM orders GROUP BY customer_id',
  "EXPLAIN ANALYZE VERBOSE WITH paid AS (SELECT * FROM orders WHERE status = 'paid') SELECT count(*) FROM paid",
  'SHOW search_path',
  "SELECT current_setting('TimeZone'), version(), current_schema(), current_database(), current_user",
  'SELECT pg_sleep(0.1), pg_backend_pid() > 0 AS has_pid',
  `SELECT region, count(*) FROM customers GROUP BY ROLLUP (region) ORDER BY region NULLS LAST`,
  'SELECT public.orders.id, sales.targets.region FROM public.orders, sales.targets LIMIT 3',
  "SELECT id, amount ^ 2 AS squared FROM orders WHERE to_tsvector('simple', payload->>'channel') @@ to_tsquery('web')",
];
