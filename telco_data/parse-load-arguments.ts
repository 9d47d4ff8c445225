/**
 * The loader's command-line flags, turned into `loadTelco` options. Kept apart from load.ts so it
 * can be tested without running the command.
 */
import { parseArgs } from 'node:util';
import type { LoadTelcoOptions } from './load-telco.js';
import { invalidArgument, TelcoError } from './telco-error.js';

export const LOAD_USAGE = `usage: tsx telco_data/load.ts --url <sqlite:path | mysql://user:password@host:port/telco_db
                                 | postgres://user:password@host:port/telco_db[?schema=public]>
       [--csv path] [--seed 42] [--rows 7043] [--readonly-user tally_ro --readonly-password PW]
--target is the older name of --url.`;

const FLAGS = {
  url: { type: 'string' },
  target: { type: 'string' },
  csv: { type: 'string' },
  seed: { type: 'string' },
  rows: { type: 'string' },
  'readonly-user': { type: 'string' },
  'readonly-password': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw invalidArgument(flag, `expected a whole number, got '${value}'`);
  return Number(value);
}

function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // parseArgs explains at length over several lines; the first sentence names the flag.
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new TelcoError('TELCO_ARGUMENT_INVALID', message.replace(/\.\s*To specify.*$/, ''));
  }
}

/** Turns argv into loader options, or `'help'`; throws a `TelcoError` naming the flag at fault. */
export function parseLoadArguments(argv: readonly string[]): LoadTelcoOptions | 'help' {
  const values = parseFlags(argv);
  if (values.help) return 'help';
  if (values.url !== undefined && values.target !== undefined) {
    throw invalidArgument('--url', 'give --url or --target (its older name), not both');
  }
  if (values.url === undefined && values.target === undefined) {
    throw invalidArgument('--url', 'is required (sqlite:<path>, mysql://... or postgres://...)');
  }
  const user = values['readonly-user'];
  const password = values['readonly-password'];
  if (user !== undefined && password === undefined) {
    throw invalidArgument('--readonly-password', 'is required with --readonly-user');
  }
  if (password !== undefined && user === undefined) {
    throw invalidArgument('--readonly-user', 'is required with --readonly-password');
  }
  const seed = wholeNumber('--seed', values.seed);
  const rows = wholeNumber('--rows', values.rows);
  return {
    // Kept apart so that errors name the flag that was given.
    ...(values.url === undefined ? {} : { url: values.url }),
    ...(values.target === undefined ? {} : { target: values.target }),
    ...(values.csv === undefined ? {} : { csvPath: values.csv }),
    ...(seed === undefined ? {} : { seed }),
    ...(rows === undefined ? {} : { rows }),
    ...(user !== undefined && password !== undefined ? { readonlyUser: { name: user, password } } : {}),
  };
}
