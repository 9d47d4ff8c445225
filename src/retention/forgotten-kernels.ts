/**
 * What running services still hold of threads that went: `tally forget` runs in its own process, while
 * a service may hold a live kernel (container and workspace) of the thread and follow the playbook
 * saved from it; the retention sweep erases threads on one replica while others may hold kernels of
 * them. Both list the thread in `forgotten-threads`; every replica reads the list from where it last
 * stopped, disposes the kernels it holds for them and stops following deleted playbooks. The
 * retention sweep trims the list a period later (see `retention-sweep.ts`), and notes where it ended
 * in `forgotten-threads-mark`: positions before the mark may be gone, so a replica starts reading there.
 */
import type { Logger } from '../base/logger.js';
import type { Clock } from '../ports/clock.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';

export const FORGOTTEN_THREADS = 'forgotten-threads';
/** Where the list ended at the last retention sweep; what comes before it may be trimmed. */
export const FORGOTTEN_THREADS_MARK = 'forgotten-threads-mark';

/** One entry of the list: the thread, and the playbook file deleted with it (deletion on request only). */
export interface ForgottenThread {
  threadKey: string;
  playbook?: string;
}

export interface ForgottenKernelsOptions {
  store: Store;
  sandbox: Pick<Sandbox, 'release'>;
  /** Stops following the playbook of this path, whose file was deleted. */
  dropPlaybook: (path: string) => void;
  clock: Clock;
  /** How often the list is read. Default 15 s. */
  everyMs?: number;
  logger: Logger;
}

/** Starts watching; returns a function that stops it. */
export function watchForgottenKernels(options: ForgottenKernelsOptions): () => void {
  const everyMs = options.everyMs ?? 15_000;
  let position: number | undefined;
  let stopped = false;
  let cancel = () => {};
  const check = async () => {
    // Positions are for good, but a trimmed one reads as gone: counting from there would miscount.
    const from = position ?? (await options.store.get<number>(FORGOTTEN_THREADS_MARK)) ?? 0;
    const entries = await options.store.range<ForgottenThread>(FORGOTTEN_THREADS, from);
    // The first read only finds where the list ends: what was forgotten before this process started has no
    // kernel here, and its playbook's file was gone when the playbooks were loaded.
    if (position !== undefined) {
      for (const { threadKey, playbook } of entries) {
        if (playbook) options.dropPlaybook(playbook);
        if (await options.sandbox.release(threadKey)) {
          options.logger.info({ threadKey }, 'disposed the kernel of a forgotten thread');
        }
      }
    }
    position = from + entries.length;
  };
  const tick = () => {
    if (stopped) return;
    check()
      .catch((error: unknown) => options.logger.warn({ err: error }, 'could not read the forgotten threads'))
      .finally(() => {
        if (!stopped) cancel = options.clock.setTimer(everyMs, tick);
      });
  };
  tick();
  return () => {
    stopped = true;
    cancel();
  };
}
