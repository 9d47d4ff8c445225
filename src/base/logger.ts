/** The one pino root logger. Secrets are redacted wherever they appear in logged objects. */
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

const SECRET_KEYS = [
  'token',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'authorization',
  'signingSecret',
  'appToken',
  'sentinelPassword',
];

/** Paths pino censors: the keys at the top level and up to two levels deep. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

export interface LoggerOptions {
  level?: string;
  /** Where lines go; default stderr, so stdout stays for the program's own output. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: options.level ?? 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    (options.destination ?? process.stderr) as DestinationStream,
  );
}
