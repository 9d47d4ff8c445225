/**
 * Which failures mean that Redis does not answer (the store turns those into StoreUnavailableError, which names
 * where), and the reason to give for one.
 */
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from '@redis/client';

const CONNECTION_ERRORS = [
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
];

export function isConnectionError(error: unknown): boolean {
  if (CONNECTION_ERRORS.some((type) => error instanceof type)) return true;
  // keyv's adapter reports a client that cannot connect with a plain Error.
  if (error instanceof Error && /not connected|failed to connect/i.test(error.message)) return true;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

export function reasonOf(error: unknown): string {
  const cause = error instanceof ReconnectStrategyError ? error.originalError : error;
  return cause instanceof Error ? cause.message || cause.name : String(cause);
}
