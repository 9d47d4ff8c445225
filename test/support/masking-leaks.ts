/**
 * What the masking battery holds every outcome against: the withheld values (raw e-mail addresses and phones, in
 * parts of 8 characters or more, in any case, reversed, hex-encoded, spread out between other characters, whole in
 * base64 and as MD5, SHA-1 and SHA-256 digests; the pseudonym key; tenure, which no one is granted, behind a
 * marker; and for the support user the ticket topics), and the masked copy's rows.
 */

import { createHash } from 'node:crypto';
import { SqlRejectedError } from '../../src/base/errors.js';
import type { QueryResult } from '../../src/ports/database.js';
import { TENURE_MARKER } from './masking-star-statements.js';
import { CUSTOMERS, RAW_CONTACTS, TICKETS } from './policy-databases.js';
import { KEY, pseudonym } from './policy-grants.js';

export type User = 'analyst' | 'support';

/** What one statement came to: rows, or a refusal by the policy or the guard, or a server error. */
export type Outcome =
  | { kind: 'rows'; columns: string[]; rows: unknown[][] }
  | { kind: 'refused' | 'failed'; message: string };

export async function outcomeOf(run: () => Promise<QueryResult>): Promise<Outcome> {
  try {
    const result = await run();
    return { kind: 'rows', columns: result.columns.map((column) => column.name), rows: result.rows };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: error instanceof SqlRejectedError ? 'refused' : 'failed', message };
  }
}

interface Withheld {
  text: string;
  what: string;
  /**
   * How texts are compared with it: as they are (base64 tells case apart), ignoring case (UPPER(email) is a leak,
   * and so is HEX's upper case), or as letters and digits only, ignoring case (`a n n . l e e @ …` is a leak too).
   */
  compare: 'exact' | 'case' | 'alphanumeric';
}

const TENURES = [12, 3, 40, 7, 25];
const PART = 8;

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const reversed = (text: string) => [...text].reverse().join('');
const parts = (text: string, length: number) =>
  Array.from({ length: Math.max(1, text.length - length + 1) }, (_, at) => text.slice(at, at + length));

const alphanumeric = (text: string) => text.replace(/[^0-9a-z]/gi, '').toLowerCase();
const digest = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');
const withheld = (text: string, what: string, compare: Withheld['compare'] = 'case'): Withheld => ({
  text,
  what,
  compare,
});

function withheldValues(user: User): Withheld[] {
  const values = RAW_CONTACTS.flatMap((raw) => [
    ...parts(raw, PART).map((part) => withheld(part, `part '${part}' of ${raw}`)),
    ...parts(reversed(raw), PART).map((part) => withheld(part, `reversed part '${part}' of ${raw}`)),
    ...parts(raw, PART).map((part) => withheld(hex(part), `hex of '${part}' of ${raw}`)),
    ...parts(alphanumeric(raw), PART).map((part) =>
      withheld(part, `letters and digits '${part}' of ${raw}`, 'alphanumeric'),
    ),
    withheld(Buffer.from(raw).toString('base64').replace(/=+$/, ''), `base64 of ${raw}`, 'exact'),
    ...['md5', 'sha1', 'sha256'].map((algorithm) => withheld(digest(algorithm, raw), `${algorithm} of ${raw}`)),
  ]);
  const key = parts(KEY, 16).map((part) => withheld(part, 'the pseudonym key'));
  const tenures = TENURES.map((tenure) => withheld(`${TENURE_MARKER}${tenure}`, `tenure ${tenure}`));
  const topics = [...new Set(TICKETS.map(([, , topic]) => topic))].map((topic) =>
    withheld(topic, `ticket topic ${topic}`),
  );
  // A part of a withheld value that is also part of a value the person may read ('bobstone' of bob.stone@… and of
  // the name Bob Stone) proves nothing, and is not looked for.
  const granted = grantedTexts(user);
  const telling = values.filter(({ text, compare }) => {
    const needle = compare === 'exact' ? text : text.toLowerCase();
    return !granted[compare].some((value) => value.includes(needle));
  });
  return [...telling, ...key, ...tenures, ...(user === 'support' ? topics : [])];
}

/** The values `user` may read, in each of the forms `Withheld` compares. */
function grantedTexts(user: User): Record<Withheld['compare'], string[]> {
  const customers = CUSTOMERS.flatMap(([id, name, email, , segment]) => [String(id), name, pseudonym(email), segment]);
  const tickets = TICKETS.flatMap(([id, email, topic]) => [String(id), pseudonym(email), topic]);
  const texts = user === 'analyst' ? [...customers, ...tickets] : customers;
  return {
    exact: texts,
    case: texts.map((text) => text.toLowerCase()),
    alphanumeric: texts.map(alphanumeric),
  };
}

const WITHHELD: Record<User, Withheld[]> = { analyst: withheldValues('analyst'), support: withheldValues('support') };

/** Every text a cell carries: bytes as UTF-8 and as hex, structures as JSON. */
function cellTexts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    const bytes = Buffer.from(value);
    return [bytes.toString('utf8'), bytes.toString('hex')];
  }
  if (typeof value === 'object' && !(value instanceof Date)) return [JSON.stringify(value)];
  return [String(value)];
}

/**
 * The withheld values found in `texts`, described. A value the statement itself spells out (an oracle's pattern)
 * is not looked for, since an error may quote the statement.
 */
export function leaksIn(texts: readonly string[], sql: string, user: User, kind: 'message' | 'data'): string[] {
  const statement = { exact: sql, case: sql.toLowerCase(), alphanumeric: alphanumeric(sql) };
  const searched = {
    exact: texts,
    case: texts.map((text) => text.toLowerCase()),
    alphanumeric: texts.map(alphanumeric),
  };
  const found = WITHHELD[user].filter(({ text, compare }) => {
    // Letters and digits run together across a row's values ('Bob Stone' then 'email…'): for messages only, where
    // the differential comparison of rows does not reach.
    if (compare === 'alphanumeric' && kind === 'data') return false;
    const needle = compare === 'exact' ? text : text.toLowerCase();
    return !statement[compare].includes(needle) && searched[compare].some((candidate) => candidate.includes(needle));
  });
  return [...new Set(found.map(({ what }) => what))];
}

/**
 * What an outcome shows, as texts to search: the message, or the column names and every cell. Data (not messages,
 * which name the column in a refusal) must not mention tenure at all.
 */
export function outcomeLeaks(outcome: Outcome, sql: string, user: User): string[] {
  if (outcome.kind !== 'rows') return leaksIn([outcome.message], sql, user, 'message');
  const texts = [...outcome.columns, ...outcome.rows.flatMap((row) => row.flatMap(cellTexts))];
  return [...leaksIn(texts, sql, user, 'data'), ...tenureIn(texts)];
}

/** A column or value naming tenure: the column no one is granted, come through. */
export function tenureIn(texts: readonly string[]): string[] {
  return texts.some((text) => /tenure/i.test(text)) ? ['the ungranted column tenure'] : [];
}

/** A cell as the comparison sees it: numbers and numeric text alike, JSON arrays sorted (their order is the server's). */
function canonicalCell(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  if (text.startsWith('[')) {
    try {
      const array: unknown = JSON.parse(text);
      if (Array.isArray(array)) return JSON.stringify(array.map((item) => JSON.stringify(item)).sort());
    } catch {
      // not JSON: compared as text
    }
  }
  return text;
}

/** The rows as a sorted list of canonical rows: a multiset. */
export function multiset(rows: readonly unknown[][]): string[] {
  return rows.map((row) => JSON.stringify(row.map(canonicalCell))).sort();
}

/** Why two row outcomes differ (column names ignoring case, rows as multisets), if they do. */
export function rowDifference(
  policed: Extract<Outcome, { kind: 'rows' }>,
  copy: Extract<Outcome, { kind: 'rows' }>,
): string | undefined {
  const names = (outcome: typeof policed) => outcome.columns.map((name) => name.toLowerCase()).join(', ');
  if (names(policed) !== names(copy)) return `columns (${names(policed)}) where the masked copy has (${names(copy)})`;
  const [mine, theirs] = [multiset(policed.rows), multiset(copy.rows)];
  if (JSON.stringify(mine) === JSON.stringify(theirs)) return undefined;
  return `rows ${short(mine)} where the masked copy has ${short(theirs)}`;
}

const short = (rows: readonly string[]) => {
  const text = `[${rows.join(', ')}]`;
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
};
