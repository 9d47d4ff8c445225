/**
 * PostgreSQL functions that reach past the data: server files, other sessions, the server's settings and state,
 * replication and backups, sequences, locks, and functions that run SQL given to them as a string (which the guard
 * cannot see into, so the schema scope would not hold). Checked on tokens (`sql-guard.ts` calls in), on every
 * name followed by `(`, whatever qualifies it: `pg_catalog.pg_read_file(…)` is caught, and a quoted name called as
 * a function is refused before this runs (`sql-guard.ts`).
 *
 * Two lists. Names starting with `pg_` are where the server keeps its administration functions, and new releases
 * add more: those are allowed only from SAFE_PG_CALLS. Other names are the whole of SQL (date_trunc, string_agg,
 * the database's own functions): refused only from the deny list below. What neither list foresees (a function of
 * an extension, one the database defines) runs under layer two: a READ ONLY transaction and a read-only account.
 */
import { MAX_SLEEP_SECONDS, sleepProblem } from './server-calls.js';
import type { SqlProblem } from './sql-problem.js';
import type { SqlToken } from './sql-tokens.js';

/** `pg_` functions an analysis may call: sizes, types, definitions of tables, views and keys, its own session. */
export const SAFE_PG_CALLS: ReadonlySet<string> = new Set([
  'pg_typeof',
  'pg_column_size',
  'pg_column_compression',
  'pg_size_pretty',
  'pg_size_bytes',
  'pg_relation_size',
  'pg_total_relation_size',
  'pg_table_size',
  'pg_indexes_size',
  'pg_get_viewdef',
  'pg_get_constraintdef',
  'pg_get_indexdef',
  'pg_get_expr',
  'pg_get_triggerdef',
  'pg_get_partkeydef',
  'pg_get_serial_sequence',
  'pg_get_userbyid',
  'pg_table_is_visible',
  'pg_type_is_visible',
  'pg_encoding_to_char',
  'pg_client_encoding',
  'pg_collation_for',
  'pg_input_is_valid',
  'pg_backend_pid',
  'pg_sleep',
]);

/**
 * Settings an analysis may read with current_setting(…) or SHOW: how values are written and compared. Any other
 * may name a file or directory (data_directory, config_file, hba_file, log_directory, ssl_key_file …), a host or
 * port, or how the server is set up: a list of what is safe, not of what is not.
 */
export const SAFE_SETTINGS: ReadonlySet<string> = new Set([
  'timezone',
  'datestyle',
  'intervalstyle',
  'search_path',
  'server_version',
  'server_version_num',
  'server_encoding',
  'client_encoding',
  'lc_collate',
  'lc_ctype',
  'lc_monetary',
  'lc_numeric',
  'lc_time',
  'standard_conforming_strings',
  'default_text_search_config',
  'extra_float_digits',
  'bytea_output',
  'transaction_isolation',
  'transaction_read_only',
  'statement_timeout',
  'max_identifier_length',
]);

export function settingsHint(form: 'SHOW' | 'current_setting'): string {
  const names = [...SAFE_SETTINGS].join(', ');
  return form === 'SHOW'
    ? `SHOW is allowed for these settings: ${names}.`
    : `current_setting('name') is allowed for these settings: ${names}.`;
}

/** Names of other functions that act beyond the statement, and why; a key ending in `*` is a prefix. */
const DENIED_CALLS: ReadonlyArray<[string, string]> = [
  ['set_config', 'changes a session setting'],
  ...names('advances, sets or reads a sequence', ['nextval', 'setval', 'currval', 'lastval']),
  ...names("runs the SQL it is given as a string, out of the guard's sight", [
    'query_to_xml*',
    'query_to_xmlschema',
    'cursor_to_xml*',
    'table_to_xml*',
    'schema_to_xml*',
    'database_to_xml*',
    'ts_stat',
    'crosstab*',
    'connectby',
    'xpath_table',
  ]),
  ...names('reads or writes large objects (server files with lo_import/lo_export)', ['lo_*', 'loread', 'lowrite']),
  ...names('connects to another database', ['dblink*', 'postgres_fdw_*']),
  ...names('tells where the server listens', ['inet_server_addr', 'inet_server_port']),
  ...names('changes index or table storage', [
    'brin_summarize_new_values',
    'brin_summarize_range',
    'brin_desummarize_range',
    'gin_clean_pending_list',
    'heap_force_kill',
    'heap_force_freeze',
    'binary_upgrade_*',
  ]),
  ...names('reads raw pages, row locks or storage statistics of any table by name', [
    'get_raw_page',
    'heap_page_item*',
    'bt_page_*',
    'bt_multi_page_stats',
    'brin_page_items',
    'gin_leafpage_items',
    'hash_page_items',
    'pgrowlocks',
    'pgstat*',
  ]),
  ['txid_current', 'assigns a transaction ID, even in a read-only transaction'],
  ['xslt_process', 'can fetch documents from files and URLs'],
  ['autoprewarm_*', 'starts a server worker or writes a file'],
];

/** `pg_` functions outside SAFE_PG_CALLS that get a reason of their own rather than the generic one. */
const PG_REASONS: ReadonlyArray<[string, string]> = [
  ...names('reads a server file', ['pg_read_file', 'pg_read_binary_file', 'pg_stat_file', 'pg_file_*']),
  ...names('lists a server directory', ['pg_ls_*', 'pg_logdir_ls']),
  ...names('holds a connection for nothing', ['pg_sleep_for', 'pg_sleep_until']),
  ...names('stops another session', ['pg_terminate_backend', 'pg_cancel_backend']),
  ...names('acts on the server', [
    'pg_reload_conf',
    'pg_rotate_logfile',
    'pg_promote',
    'pg_log_backend_memory_contexts',
  ]),
  ...names('takes or releases an advisory lock', ['pg_advisory_*', 'pg_try_advisory_*']),
  ['pg_notify', 'sends a notification to other sessions'],
  ...names('controls replication, WAL or backups', [
    'pg_create_*',
    'pg_drop_replication_slot',
    'pg_copy_*',
    'pg_replication_*',
    'pg_logical_*',
    'pg_export_snapshot',
    'pg_backup_*',
    'pg_start_backup',
    'pg_stop_backup',
    'pg_switch_wal',
    'pg_wal_*',
    'pg_walfile_name*',
    'pg_current_wal_*',
  ]),
  ...names('shows other sessions or server state', ['pg_stat_*', 'pg_blocking_pids', 'pg_safe_snapshot_blocking_pids']),
  ...names('shows server settings, file paths among them', [
    'pg_show_all_settings',
    'pg_current_logfile',
    'pg_conf_load_time',
  ]),
  ...names('shows where tables are stored', ['pg_relation_filepath', 'pg_relation_filenode', 'pg_tablespace_location']),
];

function names(effect: string, list: readonly string[]): Array<[string, string]> {
  return list.map((name) => [name, effect]);
}

function lookup(table: ReadonlyArray<[string, string]>, name: string): string | undefined {
  const hit = table.find(([key]) => (key.endsWith('*') ? name.startsWith(key.slice(0, -1)) : name === key));
  return hit?.[1];
}

const pgHint = () => {
  const listed = [...SAFE_PG_CALLS].filter((name) => name !== 'pg_sleep').join(', ');
  return `Functions starting with pg_ allowed: ${listed}, and pg_sleep up to ${MAX_SLEEP_SECONDS} second.`;
};

export function checkPostgresCalls(tokens: readonly SqlToken[]): SqlProblem | undefined {
  for (const at of tokens.keys()) {
    const problem = postgresCall(tokens, at);
    if (problem) return problem;
  }
  return undefined;
}

/** The problem with the call at `at` (a word followed by `(`), if any. */
function postgresCall(tokens: readonly SqlToken[], at: number): SqlProblem | undefined {
  const token = tokens[at];
  if (token?.kind !== 'word' || tokens[at + 1]?.text !== '(') return undefined;
  // The word without a leading number (PostgreSQL 14 reads `1pg_sleep(9)` as 1 and a call), in lower case.
  const name = token.keyword.toLowerCase();
  if (name === 'pg_sleep') return sleepProblem(tokens, at + 2, 'pg_sleep');
  if (name === 'current_setting') return settingProblem(tokens, at + 2);
  if (name === 'ts_rewrite' && topLevelArguments(tokens, at + 1) === 2) {
    return { reason: "ts_rewrite(query, select) runs the SQL it is given as a string, out of the guard's sight" };
  }
  const denied = lookup(DENIED_CALLS, name);
  if (denied) return { reason: `${name} ${denied}` };
  if (!name.startsWith('pg_') || SAFE_PG_CALLS.has(name)) return undefined;
  const reason = lookup(PG_REASONS, name) ?? 'is not one of the pg_ functions analyses may call';
  return { reason: `${name} ${reason}`, hint: pgHint() };
}

/** current_setting('name') or current_setting('name', missing_ok) with a name from SAFE_SETTINGS, as a plain string. */
function settingProblem(tokens: readonly SqlToken[], at: number): SqlProblem | undefined {
  const literal = tokens[at];
  const name = literal?.kind === 'quoted' && literal.text.startsWith("'") ? literal.text.slice(1, -1) : undefined;
  const end = tokens[at + 1]?.text === ',' ? at + 3 : at + 1;
  if (name !== undefined && tokens[end]?.text === ')' && SAFE_SETTINGS.has(name.toLowerCase())) return undefined;
  const shown = name ?? tokens[at]?.text ?? '';
  return {
    reason: `current_setting(${name === undefined ? shown : `'${name}'`}) reads a server setting analyses do not need`,
    hint: settingsHint('current_setting'),
  };
}

/** The number of arguments of the call whose `(` is at `open`. */
function topLevelArguments(tokens: readonly SqlToken[], open: number): number {
  let depth = 0;
  let count = 1;
  for (let at = open; at < tokens.length; at += 1) {
    const text = tokens[at]?.text;
    if (text === '(' || text === '[') depth += 1;
    if (text === ')' || text === ']') depth -= 1;
    if (depth === 0) return count;
    if (depth === 1 && text === ',') count += 1;
  }
  return count;
}
