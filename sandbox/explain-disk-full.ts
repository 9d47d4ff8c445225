/**
 * Says "the session's disk quota is full" for a cell that failed for lack of space, instead of the
 * bare "No space left on device", so the user (and the model) know what ran out and what to do.
 */
import type { ExecutionError } from '../src/ports/sandbox.js';

/** ENOSPC and EDQUOT as Python words them, also when a library wraps the OSError in its own text. */
const OUT_OF_SPACE = /\[errno (28|122)\]|no space left on device|disk quota exceeded/i;

/** What the explanation needs to know of the session's disk. */
export interface SessionDisk {
  /** The quota, in MiB; undefined when there is none. */
  readonly diskMb: number | undefined;
  /** True when the quota is (nearly) used up. */
  isDiskFull(): Promise<boolean>;
}

/**
 * The error, reworded when it is an out-of-space error and the session's disk is in fact full. The
 * host checks the disk rather than trust the text: the memory-backed /tmp runs out of space with
 * the same error, and code in the sandbox can raise any error it likes.
 */
export async function explainDiskFull(error: ExecutionError, disk: SessionDisk): Promise<ExecutionError> {
  if (disk.diskMb === undefined || !OUT_OF_SPACE.test(error.value)) return error;
  if (!(await disk.isDiskFull().catch(() => false))) return error;
  return {
    ...error,
    value: `the session's disk quota of ${disk.diskMb} MB is full (${error.value}); delete files in /workspace to make room`,
  };
}
