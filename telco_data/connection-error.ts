/**
 * A loader's driver failure as a one-line `TelcoError` that names the flag to fix, for either server: nothing
 * answers, the login was refused, or what else failed while doing what. The cause keeps only the driver's code
 * and message: drivers' errors may carry the SQL, which may hold a password.
 */
import { TelcoError } from './telco-error.js';

/** Driver codes of a server that does not answer. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

export interface FailedCall {
  /** The server's name in messages: 'MySQL/MariaDB', 'PostgreSQL'. */
  server: string;
  target: { host: string; port: number; user: string };
  /** The option the user should look at, and what failed. */
  flag: string;
  doing: string;
  /** The option that gave the URL (`--url`, or its older name `--target`). */
  urlFlag: string;
  /** Whether the driver's code is a refused login. */
  loginRefused: (code: string) => boolean;
  /** Whether a refused login's message quotes the server's reason (PostgreSQL's names the role or pg_hba). */
  quoteRefusal?: boolean;
}

/** A driver error reduced to its code and message. */
export function safeCause(error: unknown, code = (error as { code?: unknown }).code): Error {
  const message = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(message), typeof code === 'string' ? { code } : {});
}

export function connectionError(cause: Error, call: FailedCall): TelcoError {
  const { target, urlFlag } = call;
  const code = (cause as { code?: string }).code ?? 'unknown';
  const where = `${target.host}:${target.port}`;
  if (UNREACHABLE.has(code)) {
    return new TelcoError(
      'TELCO_DATABASE_UNREACHABLE',
      `${urlFlag}: no ${call.server} server answers at ${where} (${code}); start one or fix the host and port in ${urlFlag}`,
      { details: { host: target.host, port: target.port }, cause },
    );
  }
  if (call.loginRefused(code)) {
    const reason = call.quoteRefusal ? ` (${cause.message})` : '';
    return new TelcoError(
      'TELCO_DATABASE_REFUSED',
      `${urlFlag}: ${where} refused the login of user '${target.user}'${reason}; fix the user and password in ${urlFlag}`,
      { details: { host: target.host, port: target.port, user: target.user }, cause },
    );
  }
  return new TelcoError(
    'TELCO_DATABASE_REFUSED',
    `${call.flag}: ${call.doing} failed on ${where}: ${cause.message} (${code})`,
    { details: { host: target.host, port: target.port, code }, cause },
  );
}
