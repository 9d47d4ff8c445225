/**
 * TALLY_SANDBOX_RUNTIME against the real engine, which has gVisor's runsc registered (npm run setup does it): `auto`
 * takes runsc, a runtime the engine does not list stops start-up (exit 2), and a cell runs on gVisor's kernel under
 * runsc and on the host's under runc, with the analysis stack and a large subprocess output on both.
 */
import { release } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRuntime } from '../../sandbox/sandbox-runtime.js';
import { SandboxRuntimeMissingError } from '../../src/base/errors.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { docker } from '../support/docker.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

describe('choosing the runtime', () => {
  it('auto takes runsc, which setup registered; runc is runc', async () => {
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
    expect(Object.keys(info.Runtimes ?? {}), "run 'npm run setup', which registers runsc").toContain('runsc');
    expect(await resolveRuntime(docker, 'auto')).toEqual({ name: 'runsc' });
    expect(await resolveRuntime(docker, 'runc')).toEqual({ name: 'runc' });
  });

  it('stops start-up with exit code 2 for a runtime the engine does not list, naming those it does', async () => {
    const error = await resolveRuntime(docker, 'kata-nowhere').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SandboxRuntimeMissingError);
    expect(exitCodeOf(error)).toBe(2);
    expect((error as Error).message).toMatch(
      /TALLY_SANDBOX_RUNTIME=kata-nowhere, but the Docker engine lists only .*runc/,
    );
  });
});

describe.each([
  { runtime: 'runc', kernel: "the host's kernel", hostRelease: true, dmesg: /^(?![\s\S]*gVisor)/ },
  { runtime: 'runsc', kernel: "gVisor's kernel, never the host's", hostRelease: false, dmesg: /gVisor/ },
])('a kernel under $runtime', ({ runtime, kernel: which, hostRelease, dmesg }) => {
  let fixture: TestSandbox;
  let kernel: Kernel;
  beforeAll(async () => {
    // A tight process limit: under gVisor the pids cgroup would count the sentry's threads against it.
    fixture = await startTestSandbox({ runtime, limits: { pidsLimit: 64 } });
    kernel = await fixture.sandbox.acquire(`runtime-${runtime}`);
  });
  afterAll(() => fixture?.close());

  it(`runs its cells on ${which}`, async () => {
    expect(fixture.sandbox.runtime).toBe(runtime);
    const info = await kernel.run(
      'import os, subprocess\nprint(os.uname().release)\nprint(subprocess.run(["dmesg"], capture_output=True, text=True).stdout[:2000])',
    );
    expect(info.error, info.error?.traceback).toBeUndefined();
    const [kernelRelease = '', ...rest] = info.stdout.split('\n');
    expect(kernelRelease === release()).toBe(hostRelease);
    expect(rest.join('\n')).toMatch(dmesg);
  });

  it('takes a 50 MB flood from a subprocess pipeline and lives', async () => {
    const flood = await kernel.run('import os\nos.system("head -c 50000000 /dev/zero | tr \'\\\\0\' y")');
    expect(flood.error, flood.error?.value).toBeUndefined();
    expect(flood.stdoutBytes).toBe(50_000_000);
    expect((await kernel.run('1 + 1')).result?.text).toBe('2');
  }, 120_000);

  it('runs the analysis stack: a DataFrame, a chart, a file in the workspace', async () => {
    const execution = await kernel.run(
      [
        'import pandas as pd, matplotlib.pyplot as plt',
        'df = pd.DataFrame({"x": range(5), "y": [v * v for v in range(5)]})',
        'df.to_csv("/workspace/squares.csv", index=False)',
        'plt.plot(df.x, df.y); plt.title("squares")',
        'int(pd.read_csv("/workspace/squares.csv").y.sum())',
      ].join('\n'),
    );
    expect(execution.error, execution.error?.traceback).toBeUndefined();
    expect(execution.result?.text).toBe('30');
    expect(execution.figures).toHaveLength(1);
  });
});
