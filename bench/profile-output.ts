/**
 * Where a large output's round trip goes, stage by stage: `npx tsx bench/profile-output.ts`.
 *
 * The whole `Kernel.run` of `print('x'*N)` is timed first; then the driver's stages are timed inside
 * the same kernel with the driver's own modules (capture.py, outbox.py) on the same data, and the
 * host's stages here, on the file the driver wrote: the calls `Workspace.takeFromOutbox` and
 * `resolveAttachment` make. What the stages leave of the round trip is the request and the short
 * reply line on the attach stream, and scheduling. The last two rows are what the same payload
 * would cost inline in the JSON line (the fallback, and protocol v1): escaping it and parsing it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DockerKernel } from '../sandbox/docker-kernel.js';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import { toExecution } from '../sandbox/execution.js';
import { openInside } from '../sandbox/open-inside.js';
import { resolveAttachment } from '../sandbox/reply-attachment.js';
import { readAtMost } from '../sandbox/workspace.js';
import { BIG_OUTPUTS, benchSettings } from './bench-settings.js';

const ROUNDS = 7;
const NAME = 'f'.repeat(32);

/** Times the driver's steps for one output inside the kernel; leaves the outbox file for the host. */
const driverStages = (characters: number, limit: number) => `
import json, os, time
from capture import CappedBuffer, CaptureStream
from outbox import Outbox, text
clock = time.perf_counter
t0 = clock(); value = "x" * ${characters}
t1 = clock(); buffer = CappedBuffer(${limit}); stream = CaptureStream(buffer, 1); stream.write(value); stream.write("\\n")
t2 = clock(); reply = {"type": "result", "id": "${NAME}", "stdout": text(buffer.pieces()), "stdoutBytes": buffer.total}
box = Outbox.__new__(Outbox); box.path = os.environ["TALLY_OUTBOX"]
box.finish(reply, "${NAME}")
t3 = clock(); line = json.dumps({"v": 2, **reply}, separators=(",", ":")).encode()
t4 = clock(); inline = json.dumps({"stdout": buffer.text()}, ensure_ascii=True, separators=(",", ":")).encode()
t5 = clock()
print(json.dumps({"userCode": t1 - t0, "capture": t2 - t1, "outbox": t3 - t2, "envelope": t4 - t3, "inlineJson": t5 - t4,
            "attached": "attachment" in reply, "bytes": reply.get("attachment", {}).get("bytes", 0)}))`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const settings = benchSettings();
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'tally-profile-'));
  const sandbox = await DockerSandbox.start({
    docker: settings.docker,
    image: settings.image,
    instance: `${settings.instance}-profile`,
    workspaceRoot,
    limits: settings.limits,
    poolSize: 0,
    idleTtlMs: 30 * 60_000,
    cellTimeoutMs: 120_000,
    outputLimitBytes: settings.outputLimitBytes,
    logger: settings.logger,
  });
  try {
    const kernel = (await sandbox.acquire('profile')) as DockerKernel;
    const outbox = join(kernel.workspacePath, 'outbox');
    for (const output of BIG_OUTPUTS) {
      const characters = Number(/'x'\*([\d_]+)/.exec(output.cell)?.[1]?.replaceAll('_', ''));
      const stages: Record<string, number[]> = {};
      const add = (stage: string, ms: number) => {
        stages[stage] ??= [];
        stages[stage].push(ms);
      };
      for (let round = 0; round < ROUNDS; round += 1) {
        const started = performance.now();
        await kernel.run(output.cell, { outputLimitBytes: output.outputLimitBytes, journal: false });
        add('Kernel.run, end to end', performance.now() - started);
        const timed = await kernel.run(driverStages(characters, output.outputLimitBytes), { journal: false });
        const driver = JSON.parse(timed.stdout || '{}') as Record<string, number | boolean>;
        if (!driver.attached)
          throw new Error(`the ${output.label} was not attached: ${timed.stdout}${timed.error?.value ?? ''}`);
        add("driver: the cell's own code ('x'*N)", Number(driver.userCode) * 1000);
        add('driver: print into the capped capture', Number(driver.capture) * 1000);
        add('driver: write the attachment to the outbox', Number(driver.outbox) * 1000);
        add('driver: the reply line (JSON envelope)', Number(driver.envelope) * 1000);
        let mark = performance.now();
        const file = await openInside(outbox, NAME);
        const data = await readAtMost(file, Number(driver.bytes), NAME);
        await file.close();
        await rm(join(outbox, NAME), { force: true });
        add('host: read the attachment (open inside, read, remove)', performance.now() - mark);
        mark = performance.now();
        const reply = { v: 2, type: 'result', id: NAME, attachment: { bytes: data.length } };
        const pointed = { ...reply, stdout: { part: [0, data.length] }, stdoutBytes: data.length };
        const resolved = await resolveAttachment(pointed, async () => data, data.length);
        add('host: put the output in its place (resolveAttachment)', performance.now() - mark);
        mark = performance.now();
        toExecution(resolved, 0);
        add('host: check the reply (toExecution)', performance.now() - mark);
        const stdout = String(resolved.stdout);
        add('inline instead: driver json.dumps(ensure_ascii)', Number(driver.inlineJson) * 1000);
        const line = JSON.stringify({ stdout });
        mark = performance.now();
        JSON.parse(line);
        add('inline instead: host JSON.parse', performance.now() - mark);
      }
      process.stdout.write(`\n${output.label} (${output.cell}, limit ${output.outputLimitBytes}), p50 of ${ROUNDS}\n`);
      for (const [stage, values] of Object.entries(stages)) {
        process.stdout.write(`  ${stage.padEnd(58)} ${median(values).toFixed(2).padStart(9)} ms\n`);
      }
    }
  } finally {
    await sandbox.close();
    await rm(workspaceRoot, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
