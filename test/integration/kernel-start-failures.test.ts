/**
 * A kernel that does not start says why, truthfully: too little memory for the interpreter is out of
 * memory (not "check the image"), and a driver that is merely slow to say "ready" is a busy machine,
 * tried again before giving up. Real engine and image.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KernelStartError } from '../../src/base/errors.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

let fixture: TestSandbox | undefined;

afterEach(async () => {
  await fixture?.close(); // also fails if a container or a workspace was left behind
  fixture = undefined;
});

async function startFailure(sandbox: TestSandbox['sandbox']): Promise<KernelStartError> {
  const error = await sandbox.acquire('s1').then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof KernelStartError)) throw new Error(`expected a KernelStartError, got ${String(error)}`);
  return error;
}

describe('kernel start failures', () => {
  it('says out of memory when the interpreter cannot load in the memory limit, and does not retry', async () => {
    const starts: boolean[] = [];
    // Docker's least limit. A kernel started for a session imports the analysis stack on first use,
    // so it is the bare interpreter that must not fit (under gVisor, the runtime itself does not).
    fixture = await startTestSandbox({ limits: { memoryMb: 6 }, onKernelStart: (_ms, ok) => starts.push(ok) });
    const error = await startFailure(fixture.sandbox);
    expect(error.failure).toBe('out_of_memory');
    expect(error.transient).toBe(false);
    expect(error.message).toMatch(/killed for memory with 6 MiB.*raise TALLY_SANDBOX_MEMORY_MB/);
    expect(error.message).not.toMatch(/TALLY_SANDBOX_IMAGE/);
    expect(starts).toEqual([false]);
  }, 120_000);

  it('says the machine was too busy when the driver is slow to be ready, after trying again', async () => {
    const starts: boolean[] = [];
    // No driver says "ready" within a millisecond of its start, and a tenth of a CPU makes sure of it. Not
    // less: under gVisor the runtime boots inside that share, and a hundredth took minutes on a loaded machine.
    fixture = await startTestSandbox({
      limits: { cpus: 0.1 },
      startTimeoutMs: 1,
      startAttempts: 2,
      onKernelStart: (_ms, ok) => starts.push(ok),
    });
    const error = await startFailure(fixture.sandbox);
    expect(error.failure).toBe('overloaded');
    expect(error.transient).toBe(true);
    expect(error.message).toMatch(/no "ready" within 1 ms.*too busy.*TALLY_SANDBOX_START_CONCURRENCY/);
    expect(starts).toEqual([false, false]);
    expect(fixture.sandbox.stats()).toMatchObject({ live: 0, starting: 0, waiting: 0 });
  }, 120_000);
});
