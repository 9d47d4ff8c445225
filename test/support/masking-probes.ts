/**
 * The leaking functions of the masking battery (`masking-statements.ts`): SQL that would carry a withheld value out
 * of the database if it ever read the base table instead of the masked view, per dialect. Three kinds:
 *
 * - value: a per-row expression that returns the value, or an encoding of it (hex, base64, a substring, reversed),
 *   or makes the server quote it in an error (a failed cast, EXTRACTVALUE);
 * - aggregate: one value over the rows (GROUP_CONCAT / string_agg / group_concat, JSON arrays);
 * - oracle: a condition a raw value meets and its mask (16 hex digits, or NULL) never does, so a statement that
 *   counts the rows meeting it must count 0.
 */

export type Dialect = 'mysql' | 'postgres' | 'sqlite';

/** A withheld column: hashed (pseudonym) or redacted (NULL) for the analyst. */
export interface MaskedColumn {
  table: 'customers' | 'tickets';
  name: 'email' | 'phone';
}

export const MASKED_COLUMNS: readonly MaskedColumn[] = [
  { table: 'customers', name: 'email' },
  { table: 'customers', name: 'phone' },
  { table: 'tickets', name: 'email' },
];

export interface Probe {
  name: string;
  kind: 'value' | 'aggregate' | 'oracle';
  /** `column`: the column as the statement writes it (`c.email`); `target`: which one it is. */
  apply(column: string, target: MaskedColumn): string;
}

/** Literals that only raw values match: an e-mail address or a phone number, never 16 hex digits or NULL. */
const RAW_SHAPES = {
  email: {
    like: '%@example.com',
    prefix: 'ann.lee%',
    regexp: '[@]example[.]com$',
    fragment: '@',
    equal: 'ann.lee@example.com',
    list: "'bob.stone@example.com', 'eve.moss@example.com'",
  },
  phone: {
    like: '%-555-01%',
    prefix: '+1-202%',
    regexp: '^[+]1-202-555',
    fragment: '-555-',
    equal: '+1-202-555-0101',
    list: "'+1-202-555-0102', '+1-202-555-0104'",
  },
} as const;

const value = (name: string, apply: (column: string) => string): Probe => ({ name, kind: 'value', apply });
const aggregate = (name: string, apply: (column: string) => string): Probe => ({ name, kind: 'aggregate', apply });
const oracle = (name: string, apply: Probe['apply']): Probe => ({ name, kind: 'oracle', apply });

/** Oracles every dialect writes alike. */
const COMMON_ORACLES: Probe[] = [
  oracle('like-suffix', (column, { name }) => `${column} LIKE '${RAW_SHAPES[name].like}'`),
  oracle('like-prefix', (column, { name }) => `${column} LIKE '${RAW_SHAPES[name].prefix}'`),
  oracle('equal', (column, { name }) => `${column} = '${RAW_SHAPES[name].equal}'`),
  oracle('in-list', (column, { name }) => `${column} IN (${RAW_SHAPES[name].list})`),
  oracle('length', (column) => `LENGTH(${column}) <> 16`),
  // A redacted column is NULL in every row of its view; a pseudonym is 16 characters long.
  oracle('shape', (column, { name }) =>
    name === 'phone' ? `${column} IS NOT NULL` : `${column} NOT LIKE '${'_'.repeat(16)}'`,
  ),
];

const MYSQL: Probe[] = [
  value('raw', (column) => column),
  value('hex', (column) => `HEX(${column})`),
  value('substring', (column) => `SUBSTRING(${column}, 1, 8)`),
  value('reverse', (column) => `REVERSE(${column})`),
  value('base64', (column) => `TO_BASE64(${column})`),
  value('marker', (column) => `CONCAT('~', ${column}, '~')`),
  value('cast', (column) => `CAST(${column} AS SIGNED)`),
  value('length', (column) => `LENGTH(${column})`),
  // Per row, MariaDB refuses a non-constant XPath before it reads a value; the error-scalar forms pass it one.
  value('extractvalue', (column) => `EXTRACTVALUE(1, CONCAT(0x7e, ${column}))`),
  value('regexp-error', (column) => `'x' REGEXP CONCAT('(', ${column})`),
  value('md5', (column) => `MD5(${column})`),
  value('replace', (column) => `REPLACE(${column}, '.', ' ')`),
  value('soundex', (column) => `SOUNDEX(${column})`),
  aggregate('group-concat', (column) => `GROUP_CONCAT(${column} ORDER BY ${column} SEPARATOR ',')`),
  // The guard's parser does not read JSON_ARRAYAGG(… ORDER BY …): the comparison sorts JSON arrays instead.
  aggregate('json-arrayagg', (column) => `JSON_ARRAYAGG(${column})`),
  aggregate('max', (column) => `MAX(${column})`),
  ...COMMON_ORACLES,
  oracle('regexp', (column, { name }) => `${column} REGEXP '${RAW_SHAPES[name].regexp}'`),
  oracle('locate', (column, { name }) => `LOCATE('${RAW_SHAPES[name].fragment}', ${column}) > 0`),
  oracle('instr', (column, { name }) => `INSTR(${column}, '${RAW_SHAPES[name].fragment}') > 0`),
];

const POSTGRES: Probe[] = [
  value('raw', (column) => column),
  value('hex', (column) => `encode(convert_to(${column}, 'UTF8'), 'hex')`),
  value('bytes', (column) => `convert_to(${column}, 'UTF8')`),
  value('substring', (column) => `substring(${column} from 1 for 8)`),
  value('reverse', (column) => `reverse(${column})`),
  value('base64', (column) => `encode(convert_to(${column}, 'UTF8'), 'base64')`),
  value('marker', (column) => `'~' || ${column} || '~'`),
  value('cast', (column) => `${column}::int`),
  value('length', (column) => `length(${column})`),
  value('cast-error', (column) => `('~' || ${column})::date`),
  value('json-error', (column) => `${column}::json`),
  value('md5', (column) => `md5(${column})`),
  value('spaced', (column) => `regexp_replace(${column}, '(.)', '\\1 ', 'g')`),
  value('translate', (column) => `translate(${column}, '.@', '  ')`),
  aggregate('string-agg', (column) => `string_agg(${column}, ',' ORDER BY ${column})`),
  aggregate('json-agg', (column) => `json_agg(${column} ORDER BY ${column})::text`),
  aggregate('max', (column) => `max(${column})`),
  ...COMMON_ORACLES,
  oracle('regexp', (column, { name }) => `${column} ~ '${RAW_SHAPES[name].regexp}'`),
  oracle('strpos', (column, { name }) => `strpos(${column}, '${RAW_SHAPES[name].fragment}') > 0`),
  oracle('position', (column, { name }) => `position('${RAW_SHAPES[name].fragment}' in ${column}) > 0`),
  oracle('split-part', (column, { name }) => `split_part(${column}, '${RAW_SHAPES[name].fragment}', 2) <> ''`),
];

const SQLITE: Probe[] = [
  value('raw', (column) => column),
  value('hex', (column) => `hex(${column})`),
  value('substring', (column) => `substr(${column}, 1, 8)`),
  value('upper', (column) => `upper(${column})`),
  value('marker', (column) => `'~' || ${column} || '~'`),
  value('cast', (column) => `CAST(${column} AS INTEGER)`),
  value('length', (column) => `length(${column})`),
  value('json-error', (column) => `json(${column})`),
  value('quote', (column) => `quote(${column})`),
  value('replace', (column) => `replace(${column}, '@', ' at ')`),
  value('unicode', (column) => `unicode(${column})`),
  value('printf', (column) => `printf('%s!', ${column})`),
  aggregate('group-concat', (column) => `group_concat(${column}, ',' ORDER BY ${column})`),
  aggregate('json-group-array', (column) => `json_group_array(${column} ORDER BY ${column})`),
  aggregate('max', (column) => `max(${column})`),
  ...COMMON_ORACLES,
  oracle('instr', (column, { name }) => `instr(${column}, '${RAW_SHAPES[name].fragment}') > 0`),
  oracle('glob', (column, { name }) => `${column} GLOB '*${RAW_SHAPES[name].fragment}*'`),
];

export const PROBES: Readonly<Record<Dialect, readonly Probe[]>> = { mysql: MYSQL, postgres: POSTGRES, sqlite: SQLITE };
