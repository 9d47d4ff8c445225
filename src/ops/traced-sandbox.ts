/**
 * A `Sandbox` whose kernels trace their work: acquiring a thread's kernel (a warm one, a start, a wait for
 * room) and every cell it runs are spans. A cell's span says how long it ran, how big its code and output
 * were, how many figures it drew, and the exception's class when it failed; never the code, its output or
 * its result. Code stays out by the audit trail's rule: the trail records no cell code either, and code
 * quotes what the model read from the data (names, figures) as often as SQL does not.
 */
import type { AcquireOptions, Kernel, RunOptions, Sandbox } from '../ports/sandbox.js';
import type { Tracing } from '../ports/tracing.js';

export function tracedSandbox(sandbox: Sandbox, tracing: Tracing): Sandbox {
  // One wrapper per kernel: callers tell a new kernel from a known one by its identity (SessionKernels).
  const traced = new WeakMap<Kernel, Kernel>();
  return {
    acquire(sessionId: string, options?: AcquireOptions) {
      return tracing.span('tally.kernel.acquire', { 'tally.thread.key': sessionId }, async (span) => {
        let queued: number | undefined;
        const kernel = await sandbox.acquire(sessionId, {
          ...options,
          onQueued: (ahead) => {
            queued = ahead;
            options?.onQueued?.(ahead);
          },
        });
        span.set({ 'tally.kernel.queued_behind': queued });
        let wrapper = traced.get(kernel);
        if (!wrapper) {
          wrapper = tracedKernel(kernel, tracing);
          traced.set(kernel, wrapper);
        }
        return wrapper;
      });
    },
    release: (sessionId: string) => sandbox.release(sessionId),
    close: () => sandbox.close(),
  };
}

function tracedKernel(kernel: Kernel, tracing: Tracing): Kernel {
  return {
    get sessionId() {
      return kernel.sessionId;
    },
    run(code: string, options?: RunOptions) {
      const attributes = {
        'tally.cell.code_bytes': Buffer.byteLength(code),
        'tally.cell.code_lines': code.split('\n').length,
        'tally.cell.journal': options?.journal ?? true,
      };
      return tracing.span('tally.cell', attributes, async (span) => {
        const execution = await kernel.run(code, options);
        span.set({
          'tally.cell.duration_ms': execution.durationMs,
          'tally.cell.stdout_bytes': execution.stdoutBytes,
          'tally.cell.stderr_bytes': execution.stderrBytes,
          'tally.cell.figures': execution.figures.length,
          'tally.cell.result_type': execution.result?.type,
          'tally.cell.timed_out': execution.timedOut,
          'tally.cell.restarted': execution.restarted?.reason,
        });
        if (execution.error) span.fail(execution.error.name);
        return execution;
      });
    },
    writeFile: (path, data) => kernel.writeFile(path, data),
    removeInput: (path) => kernel.removeInput(path),
    readFile: (path, options) => kernel.readFile(path, options),
    interrupt: () => kernel.interrupt(),
    restart: () => kernel.restart(),
    hold: () => kernel.hold(),
    dispose: () => kernel.dispose(),
  };
}
