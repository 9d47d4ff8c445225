/**
 * The host's side of a statement's limits, the same for every server connector: a person's cancel (the abort
 * signal), or a backstop a little past the server's own time limit, stops the statement on the server; afterwards
 * the watch says which it was, so the failure is reported as cancelled or timed out rather than as the error the
 * stop caused, and whether the connection may be used again.
 */

/** How long past the server's own limit the backstop waits: the server enforces the limit, this only backs it up. */
const BACKSTOP_GRACE_MS = 2000;

export class StatementWatch {
  /** Why the host stopped the statement, if it did. */
  stopped: 'timeout' | 'cancelled' | undefined;
  /** The connection was stopped mid-statement (or failed): it may still be sending rows, so it is not reused. */
  broken = false;
  private readonly backstop: NodeJS.Timeout;
  private readonly onAbort = () => this.stop('cancelled');

  /** `stopOnServer` asks the server to stop the statement (KILL QUERY, pg_cancel_backend); it never rejects. */
  constructor(
    private readonly stopOnServer: () => Promise<void>,
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.backstop = setTimeout(() => this.stop('timeout'), timeoutMs + BACKSTOP_GRACE_MS);
  }

  /** Stops the statement on the server: also for a reader that gives up halfway (too many rows, say). */
  readonly kill = async (): Promise<void> => {
    this.broken = true;
    await this.stopOnServer();
  };

  /** Stops listening; call once the statement is over, whichever way. */
  end(): void {
    clearTimeout(this.backstop);
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private stop(why: 'timeout' | 'cancelled'): void {
    this.stopped ??= why;
    void this.kill();
  }
}
