/**
 * Readiness: can this replica do its work now? Named checks (Docker engine, store, databases, model
 * endpoint, the chat connection) run in parallel, each under its own time limit, and `GET /readyz` answers 503 when any
 * fails, so a load balancer or Kubernetes stops sending work until it recovers.
 *
 * The result is served to whoever can reach the ops port, so failure messages are cut down to a
 * short, secret-free reason: credentials, query strings and bearer tokens are removed, and the model
 * check names only the endpoint's host.
 */
import type { Database } from '../ports/database.js';
import type { Store } from '../ports/store.js';

export interface ReadinessCheck {
  /** Shown as the key of the check in the result, e.g. `store`, `database:telco`. */
  name: string;
  /**
   * Resolves when the dependency answers, optionally with a short detail worth showing (the engine's runtime);
   * rejects (with a reason) when it does not.
   */
  check: (signal: AbortSignal) => Promise<unknown>;
}

export interface CheckOutcome {
  ok: boolean;
  /** Why the check failed: a short message without secrets. Absent when `ok`. */
  error?: string;
  /** What the check reports when it passes, e.g. `runtime runsc`. */
  detail?: string;
  /** How long the check took, in ms (at most about the time limit). */
  ms: number;
}

export interface ReadinessResult {
  /** True when every check passed (and when there are no checks). */
  ready: boolean;
  checks: Record<string, CheckOutcome>;
}

export interface ReadinessOptions {
  /**
   * Time limit of each check, in ms; a check still running then fails and its signal is aborted.
   * Default 2000: short enough for a probe period of a few seconds.
   */
  timeoutMs?: number;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 2_000;

/**
 * Runs every check at once and reports each. A failing check is part of the result, never thrown;
 * only two checks with one name (a wiring mistake: one would hide the other) throw.
 */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  options: ReadinessOptions = {},
): Promise<ReadinessResult> {
  const names = checks.map((check) => check.name);
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) throw new Error(`Readiness checks need distinct names; repeated: ${repeated.join(', ')}`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const outcomes = await Promise.all(checks.map((check) => runCheck(check, timeoutMs)));
  const result: ReadinessResult = { ready: outcomes.every((outcome) => outcome.ok), checks: {} };
  checks.forEach((check, index) => {
    const outcome = outcomes[index];
    if (outcome) result.checks[check.name] = outcome;
  });
  return result;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The race, not only the signal, ends the check: a check that ignores its signal cannot hold
  // up the probe.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const attempt = Promise.resolve().then(() => check.check(controller.signal));
  attempt.catch(() => {}); // when the deadline wins, the late failure has no one to tell
  try {
    const detail = await Promise.race([attempt, deadline]);
    return { ok: true, ms: elapsedSince(started), ...(typeof detail === 'string' ? { detail } : {}) };
  } catch (error) {
    return { ok: false, error: safeReason(error), ms: elapsedSince(started) };
  } finally {
    clearTimeout(timer);
  }
}

/** A round trip to the store (a read of a key nobody writes). */
export function storeCheck(store: Store, name = 'store'): ReadinessCheck {
  return { name, check: async () => void (await store.get('health:probe')) };
}

export interface DatabaseCheckOptions {
  /** Server-side time limit of the probe query, in ms. Default 2000, like the check's own limit. */
  timeoutMs?: number;
}

/** `SELECT 1` on the database, through its guard like any query. Named `database:<name>`. */
export function databaseCheck(db: Database, options: DatabaseCheckOptions = {}): ReadinessCheck {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  return {
    name: `database:${db.name}`,
    check: async (signal) => void (await db.query('SELECT 1', { maxRows: 1, timeoutMs, signal })),
  };
}

export interface ModelCheckOptions {
  /** Used instead of the global `fetch` (tests, proxies). */
  fetch?: typeof fetch;
}

/**
 * Whether the model endpoint (LLM_BASE_URL) answers HTTP at all: a GET of `<baseUrl>/models`
 * without credentials. Any response, 401 and 404 included, counts as reachable: the check must not
 * spend tokens or send the key, and a wrong key is the model's error to report, not readiness.
 */
export function modelCheck(baseUrl: string, options: ModelCheckOptions = {}): ReadinessCheck {
  const fetchImpl = options.fetch ?? fetch;
  return {
    name: 'model',
    async check(signal) {
      let url: URL;
      try {
        url = new URL(`${baseUrl.replace(/\/+$/, '')}/models`);
      } catch {
        throw new Error('LLM_BASE_URL is not a valid URL');
      }
      // fetch refuses URLs with credentials, and they must not travel with a probe anyway.
      url.username = '';
      url.password = '';
      let response: Response;
      try {
        response = await fetchImpl(url, { method: 'GET', signal, redirect: 'manual' });
      } catch (error) {
        throw new Error(`model endpoint ${url.host} does not answer (${networkReason(error)})`);
      }
      await response.body?.cancel();
    },
  };
}

/**
 * The chat platform can reach tally: its adapter says it is connected (Socket Mode or gateway greeted and
 * not reconnecting). Until then messages cannot arrive, so the replica is not ready.
 */
export function chatCheck(isConnected: () => boolean, name = 'chat'): ReadinessCheck {
  return {
    name,
    check: async () => {
      if (!isConnected()) throw new Error('not connected to the chat platform (connecting or reconnecting)');
    },
  };
}

/** The Docker engine answers (the caller passes the engine's ping, e.g. `() => docker.ping()`). */
/** The Docker engine answers; `detail` (e.g. the container runtime kernels run under) is shown when it does. */
export function engineCheck(ping: () => Promise<unknown>, name = 'engine', detail?: () => string): ReadinessCheck {
  return {
    name,
    check: async () => {
      await ping();
      return detail?.();
    },
  };
}

const MAX_REASON_LENGTH = 300;

/**
 * A failure's reason fit for an unauthenticated response: the error's code (or class, when it is
 * more than a plain Error), then its message with anything secret-shaped removed, on one line, cut
 * to a few hundred characters.
 */
export function safeReason(error: unknown): string {
  if (!(error instanceof Error)) return 'failed';
  const code = (error as { code?: unknown }).code;
  const label = typeof code === 'string' && code !== '' ? code : error.name === 'Error' ? '' : error.name;
  const message = scrubSecrets(error.message.replace(/\s+/g, ' ').trim());
  const reason = [label, message].filter((part) => part !== '').join(': ') || 'failed';
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
}

function scrubSecrets(text: string): string {
  return (
    text
      // user:password@ in any URL
      .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@')
      // query strings, where API keys often travel
      .replace(/(:\/\/[^\s?#]*)\?[^\s#]*/g, '$1?***')
      .replace(/\b(bearer|basic)\s+[^\s,;]+/gi, '$1 ***')
      .replace(/\b((?:api[_-]?key|token|secret|password|passwd|pwd)\s*[=:]\s*)[^\s,;&]+/gi, '$1***')
      // OpenAI-style keys (sk-..., sk-proj-...)
      .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, 'sk-***')
  );
}

/** `ECONNREFUSED`, `ENOTFOUND`, `timeout`...: what fetch's wrapped cause says, never a URL. */
function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === 'AbortError') return 'aborted';
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'network error';
}

function elapsedSince(started: number): number {
  return Math.round(performance.now() - started);
}
