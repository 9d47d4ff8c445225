/** Waits for a kernel's reply to one request, a time limit or an abort, whichever comes first. */
import type { ExecutionError } from '../src/ports/sandbox.js';
import { ChannelClosedError, ReplyTooLargeError } from './kernel-channel.js';

export type ReplyOutcome =
  | { kind: 'reply'; reply: Record<string, unknown> }
  /** The kernel process is gone. */
  | { kind: 'closed' }
  /** The reply was dropped (too long, or its attachment unreadable); the kernel lives on. */
  | { kind: 'lost'; error: ExecutionError }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

export function awaitReply(
  pending: Promise<Record<string, unknown>>,
  ms: number,
  signal?: AbortSignal,
): Promise<ReplyOutcome> {
  return new Promise<ReplyOutcome>((resolve) => {
    const finish = (outcome: ReplyOutcome) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), ms);
    const onAbort = () => finish({ kind: 'aborted' });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (reply) => finish({ kind: 'reply', reply }),
      (error: unknown) =>
        finish(error instanceof ChannelClosedError ? { kind: 'closed' } : { kind: 'lost', error: lostReply(error) }),
    );
  });
}

function lostReply(error: unknown): ExecutionError {
  if (error instanceof ReplyTooLargeError) return { name: 'OutputTooLarge', value: String(error), traceback: '' };
  const reason = error instanceof Error ? error.message : String(error);
  return {
    name: 'KernelProtocolError',
    value: `The kernel's reply to this cell could not be read (${reason}), so its outcome is unknown. Code in the cell may have written to the kernel's outbox.`,
    traceback: '',
  };
}
