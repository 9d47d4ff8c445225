import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxDemo } from '../../src/demo/sandbox-demo.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

let fixture: TestSandbox;
let outDir: string;

beforeAll(async () => {
  fixture = await startTestSandbox();
  outDir = await mkdtemp(join(tmpdir(), 'tally-demo-'));
});
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
  await fixture?.close();
});

describe('the sandbox demo', () => {
  it('runs its cells, shows their results and saves the chart where it says', async () => {
    const lines: string[] = [];
    const { chartPath } = await runSandboxDemo({ sandbox: fixture.sandbox, outDir, print: (line) => lines.push(line) });
    const output = lines.join('\n');
    expect(output).toMatch(/Month-to-month\s+0\.483\s+263/);
    expect(output).toContain('[3 rows x 2 columns]');
    expect(output).toContain(`chart saved: ${chartPath}`);
    const png = await readFile(chartPath);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(fixture.sandbox.sessions.size).toBe(0);
  });
});
