/** What the host reports when it, not the cell, ended a run: a cancel, a timeout, a death. */
import type { ExecutionError, KernelRestart } from '../src/ports/sandbox.js';
import type { SandboxLimits } from './container-spec.js';

export const CANCELLED: ExecutionError = { name: 'Cancelled', value: 'The cell was cancelled.', traceback: '' };

export function timeoutError(timeoutMs: number): ExecutionError {
  return {
    name: 'TimeoutError',
    value: `The cell ran longer than ${timeoutMs} ms and was interrupted. Raise the limit with the run option timeoutMs (default TALLY_CELL_TIMEOUT_MS).`,
    traceback: '',
  };
}

/** The cell was stopped (timeout, cancel) but ignored the interrupt, so the kernel was replaced. */
export function unresponsiveError(stopped: ExecutionError, restart: KernelRestart): ExecutionError {
  return {
    ...stopped,
    value: `${stopped.value} The kernel did not stop when interrupted, so it was restarted and ${restart.replayedCells} earlier cells were replayed.`,
  };
}

export function deathError(restart: KernelRestart, limits: SandboxLimits): ExecutionError {
  const cause = restart.oomLikely
    ? `it ran out of memory (the sandbox has ${limits.memoryMb} MB; TALLY_SANDBOX_MEMORY_MB raises it)`
    : restart.exitCode === 137
      ? 'it was killed (exit 137, SIGKILL)'
      : `its process exited with code ${restart.exitCode ?? 'unknown'}`;
  const state =
    restart.failedReplays === 0
      ? `${restart.replayedCells} earlier cells were replayed, so their variables are back`
      : `${restart.replayedCells} earlier cells were replayed and ${restart.failedReplays} failed, so some variables may be missing`;
  return {
    name: 'KernelDied',
    value: `The kernel died while running this cell: ${cause}. It was restarted; ${state}.`,
    traceback: '',
  };
}
