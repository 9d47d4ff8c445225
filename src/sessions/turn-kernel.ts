/**
 * The kernel a turn works with: acquired when first needed (the thread is told its place when many threads start at
 * once, and how much of the journal was replayed into a new kernel) and held until the turn ends, so it is not
 * parked for another thread while the turn works with it.
 */
import type { Post, ThreadKey } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import type { SessionKernels } from './session-kernel.js';

export interface TurnKernelOptions {
  kernels: SessionKernels;
  threadKey: ThreadKey;
  /** What extractions are replayed from (the sender's, under the access policy). */
  databases: Database[];
  emit: (post: Post) => Promise<void>;
}

export interface TurnKernel {
  /** The thread's kernel, held from its first use in the turn. */
  kernel: () => Promise<Kernel>;
  /** Lets go of every kernel the turn held; called when the turn ends. */
  release: () => void;
}

export function turnKernel({ kernels, threadKey, databases, emit }: TurnKernelOptions): TurnKernel {
  const held = new Map<Kernel, () => void>();
  let toldQueued = false;
  const kernel = async () => {
    const restored = await kernels.acquire(threadKey, {
      databases,
      onQueued: (ahead) => {
        if (toldQueued) return;
        toldQueued = true;
        void emit({ kind: 'status', text: queuedText(ahead) }).catch(() => {});
      },
    });
    if (!held.has(restored.kernel)) held.set(restored.kernel, restored.kernel.hold());
    if (restored.replayed + restored.failed > 0) {
      await emit({
        kind: 'status',
        text: `Restored this session's kernel: ${restored.replayed} steps replayed${restored.failed ? `, ${restored.failed} failed` : ''}.`,
      });
    }
    return restored.kernel;
  };
  const release = () => {
    for (const releaseHeld of held.values()) releaseHeld();
  };
  return { kernel, release };
}

function queuedText(ahead: number): string {
  const place = ahead === 0 ? 'you are next' : `${ahead} ${ahead === 1 ? 'thread is' : 'threads are'} ahead of you`;
  return `Starting your session's kernel: many threads started at once, ${place}.`;
}
