/**
 * Reads the original IBM "Telco Customer Churn" CSV (WA_Fn-UseC_-Telco-Customer-Churn.csv) so the
 * loader can build telco_db from the real file instead of the generator. The file has CRLF line ends
 * in some copies, quoted fields in others, and ' ' (one space) as TotalCharges for the 11 customers
 * with tenure 0; all three are handled here.
 */
import { readFileSync } from 'node:fs';
import { TELCO_COLUMNS, type TelcoColumn, type TelcoCustomer } from './telco-customer.js';
import { TelcoError } from './telco-error.js';

/** One CSV record with the line it starts on (quoted fields may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** Splits CSV text (RFC 4180: commas, double-quoted fields with "" escapes, LF or CRLF) into records. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let index = text.startsWith('\uFEFF') ? 1 : 0;
  const endRecord = () => {
    fields.push(field);
    // A blank line is not a record with one empty field.
    if (fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields });
    fields = [];
    field = '';
  };
  for (; index < text.length; index++) {
    const character = text[index];
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (character === '"') {
        quoted = false;
      } else {
        if (character === '\n') line++;
        field += character;
      }
    } else if (character === '"') {
      quoted = true;
    } else if (character === ',') {
      fields.push(field);
      field = '';
    } else if (character === '\n' || character === '\r') {
      if (character === '\r' && text[index + 1] === '\n') index++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += character;
    }
  }
  if (quoted) throw new SyntaxError(`unterminated quoted field starting on line ${recordLine}`);
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}

function csvError(message: string, details: Record<string, unknown>): TelcoError {
  return new TelcoError('TELCO_CSV_INVALID', `--csv: ${message}`, { details });
}

function parseValue(column: TelcoColumn, raw: string, line: number): string | number {
  const value = raw.trim();
  const fail = (expected: string) =>
    csvError(`line ${line}, column ${column.name}: expected ${expected}, got '${raw}'`, { line, column: column.name });
  switch (column.kind) {
    case 'id':
      if (value === '') throw fail('a customer id');
      return value;
    case 'flag':
      if (value !== '0' && value !== '1') throw fail('0 or 1');
      return Number(value);
    case 'integer':
      if (!/^\d+$/.test(value)) throw fail('a whole number');
      return Number(value);
    case 'money':
      if (!/^\d+(\.\d+)?$/.test(value)) throw fail('an amount like 29.85');
      return Math.round(Number(value) * 100) / 100;
    case 'money-text':
      // Blank (the IBM file has one space) for customers who have not been billed yet.
      if (value !== '' && !/^\d+(\.\d+)?$/.test(value)) throw fail("an amount like 1889.5 or ''");
      return value;
    case 'category':
      if (!column.values?.includes(value)) throw fail(`one of ${column.values?.join(' | ')}`);
      return value;
  }
}

/** Parses IBM-format CSV text into customers; throws a `TelcoError` naming the line and column. */
export function parseTelcoCsv(text: string): TelcoCustomer[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (error) {
    throw csvError(error instanceof Error ? error.message : String(error), {});
  }
  const [header, ...body] = records;
  if (!header) throw csvError('the file is empty; expected the IBM header line and customer rows', {});
  const names = header.fields.map((name) => name.trim());
  const missing = TELCO_COLUMNS.filter((column) => !names.includes(column.name)).map((column) => column.name);
  if (missing.length > 0) {
    throw csvError(`the header lacks the IBM columns ${missing.join(', ')}`, { missing });
  }
  const positions = TELCO_COLUMNS.map((column) => [column, names.indexOf(column.name)] as const);
  const seen = new Set<string>();
  return body.map(({ line, fields }) => {
    if (fields.length !== names.length) {
      throw csvError(`line ${line} has ${fields.length} fields, the header has ${names.length}`, { line });
    }
    const customer: Record<string, string | number> = {};
    for (const [column, position] of positions)
      customer[column.name] = parseValue(column, fields[position] ?? '', line);
    const id = String(customer.customerID);
    if (seen.has(id)) throw csvError(`line ${line}: customerID ${id} appears twice`, { line, customerID: id });
    seen.add(id);
    return customer as unknown as TelcoCustomer;
  });
}

/** Reads and parses the CSV at `path`. */
export function readTelcoCsv(path: string): TelcoCustomer[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw csvError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { path });
  }
  return parseTelcoCsv(text);
}
