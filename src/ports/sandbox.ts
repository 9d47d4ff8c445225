/**
 * The sandbox port: a stateful Python kernel per session, isolated from the host.
 * Implemented by `sandbox/docker-sandbox.ts`; the agent and sessions import only this file.
 */

/** The value of a cell's last expression, shown like IPython's `Out[n]` but as plain text. */
export interface DisplayValue {
  /** Python type name, e.g. `DataFrame`, `int`. */
  type: string;
  /** A readable rendering; DataFrames as a table followed by `[rows x columns]`. */
  text: string;
  /** `[rows, columns]` for DataFrames, `[length]` for Series. */
  shape?: number[];
}

export interface Figure {
  png: Buffer;
  width: number;
  height: number;
  /** The figure's title (suptitle, else its first axes' title), when it has one. */
  title?: string;
  /** Its axes' titles and labels in one line, for alt text. */
  description?: string;
}

/** An exception raised by user code: data, never thrown. */
export interface ExecutionError {
  /** Exception class name, e.g. `KeyError`, or `TimeoutError` / `KernelDied` / `Cancelled` from the host. */
  name: string;
  value: string;
  /** Traceback starting at the user's own code. */
  traceback: string;
}

/** What happened when the kernel had to be restarted during a run. */
export interface KernelRestart {
  /** Why: the process died, it ignored an interrupt, or someone asked for a restart. */
  reason: 'died' | 'unresponsive' | 'requested';
  /** Exit code of the dead kernel, when known (137: killed, often for memory). */
  exitCode?: number;
  /** The kernel was killed (137) in a container where the engine saw an out-of-memory kill. */
  oomLikely: boolean;
  /** Successful cells replayed from the journal to restore state. */
  replayedCells: number;
  /** Journal cells that failed or ran over their limit on replay; state may be partial when non-zero. */
  failedReplays: number;
}

export interface Execution {
  stdout: string;
  stderr: string;
  /** Bytes written to each stream; more than the text holds when output was capped. */
  stdoutBytes: number;
  stderrBytes: number;
  result?: DisplayValue;
  figures: Figure[];
  error?: ExecutionError;
  durationMs: number;
  /** Set when the kernel was interrupted because the cell ran past its timeout. */
  timedOut: boolean;
  /** Set when the kernel died or hung and was restarted with its journal replayed. */
  restarted?: KernelRestart;
}

/** The longest time limit honoured anywhere (2^31-1 ms, about 24.8 days): Node's timers hold no more. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface RunOptions {
  /**
   * Wall-clock limit for this cell in ms; the cell is interrupted, the kernel kept. Default from
   * config; capped at MAX_TIMEOUT_MS. A restart replays the cell under the same limit.
   */
  timeoutMs?: number;
  /** Per-stream output cap in bytes (head and tail kept). Default from config. */
  outputLimitBytes?: number;
  /** Aborts the cell like a timeout does. */
  signal?: AbortSignal;
  /** Record the cell in the journal when it succeeds, so a restarted kernel replays it. Default true. */
  journal?: boolean;
}

export interface ReadFileOptions {
  /** Refuse files larger than this. Default 64 MiB. */
  maxBytes?: number;
}

export interface Kernel {
  readonly sessionId: string;
  run(code: string, options?: RunOptions): Promise<Execution>;
  /** Delivers a file the kernel can read (not change) at `/inputs/<path>`; folders are created. */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /** Removes a delivered input (file or folder) under `/inputs`. */
  removeInput(path: string): Promise<void>;
  /** Reads a file the kernel wrote at `/workspace/<path>`; links leading outside are refused. */
  readFile(path: string, options?: ReadFileOptions): Promise<Buffer>;
  /** Interrupts the running cell, if any (SIGINT: the cell raises KeyboardInterrupt). */
  interrupt(): Promise<void>;
  /** Starts a fresh interpreter and replays the journal. */
  restart(): Promise<KernelRestart>;
  /**
   * Marks the kernel in use (a turn is working with it) until the returned function is called, so
   * it is not parked to make room for another thread meanwhile. Holds nest; releasing twice is harmless.
   */
  hold(): () => void;
  /** Removes the container and the workspace. Idempotent. */
  dispose(): Promise<void>;
}

export interface AcquireOptions {
  /**
   * Told once when the session has to wait for its kernel to start (the machine is at its start or
   * kernel limit): how many sessions are ahead of it.
   */
  onQueued?: (ahead: number) => void;
}

export interface Sandbox {
  /**
   * The session's kernel: the live one, else one from the warm pool, else a new one (started in
   * turn with other sessions' starts; a start that fails for a passing reason is retried).
   */
  acquire(sessionId: string, options?: AcquireOptions): Promise<Kernel>;
  /**
   * Disposes the session's kernel (container and workspace) if this process holds one, without starting
   * one; resolves true when there was one. For deletion: its data must not outlive the request.
   */
  release(sessionId: string): Promise<boolean>;
  /** Disposes every kernel and the pool. */
  close(): Promise<void>;
}
