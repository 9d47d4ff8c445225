/** Waits for a kernel's reply to one request, a time limit or an abort, whichever comes first. */
import { ChannelClosedError } from './kernel-channel.js';

export type ReplyOutcome =
  | { kind: 'reply'; reply: Record<string, unknown> }
  /** The kernel process is gone. */
  | { kind: 'closed' }
  /** The reply was dropped (too long); the kernel lives on. */
  | { kind: 'lost'; message: string }
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
        finish(error instanceof ChannelClosedError ? { kind: 'closed' } : { kind: 'lost', message: String(error) }),
    );
  });
}
