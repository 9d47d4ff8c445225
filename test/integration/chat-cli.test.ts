import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import {
  callTool,
  type ScriptedModelServer,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { Inbox } from '../../src/sessions/inbox.js';
import { createStore } from '../../src/store/create-store.js';
import { loadTelco } from '../../telco_data/index.js';
import { containersOf, requireSandboxImage } from '../support/docker.js';
import { loopDevicesUnder, mountsUnder } from '../support/host-mounts.js';
import { startTallyProcess, type TallyProcess } from '../support/tally-process.js';

const instance = `chat-cli-${randomBytes(4).toString('hex')}`;
let home: string;
const models: ScriptedModelServer[] = [];
const children: TallyProcess[] = [];

beforeAll(async () => {
  await requireSandboxImage();
  home = await mkdtemp(join(tmpdir(), 'tally-chat-cli-'));
  // Built once here, so no run spends its time building it.
  await loadTelco({ target: `sqlite:${join(home, 'telco.db')}` });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await Promise.all(models.map((model) => model.close()));
  const left = await containersOf(instance);
  // A mounted workspace stays: removing it would empty the image through the mount.
  if (home && mountsUnder(home).length === 0) await rm(home, { recursive: true, force: true });
  expect(left).toEqual([]);
});

async function model(script: ScriptStep[] = []): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer({ script });
  models.push(server);
  return server;
}

function start(command: string[], server: ScriptedModelServer): TallyProcess {
  const child = startTallyProcess(
    command,
    {
      TALLY_HOME: home,
      TALLY_INSTANCE: instance,
      LLM_BASE_URL: server.url,
      LLM_MODEL: 'scripted',
      TALLY_SANDBOX_POOL_SIZE: '0',
      LOG_LEVEL: 'warn',
    },
    { stdin: true },
  );
  children.push(child);
  return child;
}

/** Types `lines` into a chat and waits for it to end; the input stays open (no Ctrl-D). */
async function chat(args: string[], lines: string, server: ScriptedModelServer): Promise<string> {
  const child = start(['chat', ...args], server);
  child.stdin?.write(lines);
  const code = await child.exited;
  expect(code, child.output()).toBe(0);
  return child.output();
}

const chatRequests = (server: ScriptedModelServer) => server.chatRequests.length;

/** Mount points below a folder, as this process sees them. */
/** Whether a cell wrote `name` into its workspace (seen from the host). */
async function workspaceHas(name: string): Promise<boolean> {
  const files = await readdir(join(home, 'workspaces', instance), { recursive: true }).catch(() => []);
  return files.some((file) => file.endsWith(`/${name}`));
}

const SLEEPING_CELL = (marker: string) => `import time\nopen(${JSON.stringify(marker)}, "w").close()\ntime.sleep(600)`;

describe('tally chat', () => {
  it('lists the chat commands at help and ends at quit, without a model request', async () => {
    const server = await model();
    const output = await chat([], 'help\nquit\n', server);
    expect(output).toContain('"help" lists the commands; exit, quit or Ctrl-D ends the session.');
    for (const command of [
      'set key=value',
      'accept | revise: … | discard',
      'save as playbook',
      'share PATH',
      'reset',
      'stop',
    ]) {
      expect(output).toContain(`\n  ${command}`);
    }
    expect(output).toMatch(/^ {2}run \| skip\[: why\] \| edit/m);
    expect(output).toMatch(/^ {2}report /m);
    expect(output).toMatch(/^ {2}new /m);
    expect(output).toMatch(/^ {2}exit, quit or Ctrl-D /m);
    expect(chatRequests(server)).toBe(0);
  });

  it('goes on with the thread it talked in last; new and --new start another', async () => {
    const server = await model();
    const threadOf = (output: string, said: RegExp) => said.exec(output)?.[1] ?? '';
    // A SQL block runs without the model, and gives the thread a session to resume.
    const query = '```sql\nSELECT 6 * 7 AS answer\n```\n';

    const first = await chat([], `${query}exit\n`, server);
    expect(first).toContain('New thread console:local:chat ("new" starts another)');
    expect(first).toMatch(/answer\n-+\n42/);
    expect(await chat([], 'exit\n', server)).toContain('Resuming thread console:local:chat (');

    const typed = await chat([], `new\n${query}exit\n`, server);
    const started = threadOf(typed, /Started a new thread, (console:local:chat-\d+)\./);
    expect(started).not.toBe('');
    expect(await chat([], 'exit\n', server)).toContain(`Resuming thread ${started} (`);

    const launched = await chat(['--new'], 'exit\n', server);
    const fresh = threadOf(launched, /New thread (console:local:chat-\d+) /);
    expect(fresh).not.toBe('');
    expect(fresh).not.toBe(started);
    expect(await readFile(join(home, 'chat-thread'), 'utf8')).toBe(`${fresh}\n`);
    expect(chatRequests(server)).toBe(0);
  }, 120_000);

  it('shares a file on this machine at share PATH: profiled into the prompt and read in the kernel', async () => {
    const data = join(home, 'regional revenue.csv');
    await writeFile(data, 'region,revenue\nnorth,10\nsouth,32\nnorth,5\n');
    const server = await model([
      callTool('run_python', {
        code: "import pandas as pd\nprint(pd.read_csv('/inputs/uploads/regional revenue.csv').groupby('region').revenue.sum().to_dict())",
      }),
      (context) => say(`Revenue per region: ${context.lastToolResult?.content}`),
    ]);
    const output = await chat(['--new'], `share "${data}"\nWhat is the revenue per region?\nexit\n`, server);
    expect(output).toMatch(/Got it: .*regional revenue\.csv.*Ask me about it\./);
    expect(output).toMatch(/Revenue per region: stdout:\s*\{'north': 15, 'south': 32\}/);
    // Sharing took no model request; the question's request was told the file's columns.
    expect(chatRequests(server)).toBe(2);
    const told = JSON.stringify(server.chatRequests[0]?.body);
    expect(told).toContain('/inputs/uploads/regional revenue.csv (CSV) (3 rows): region object');
  }, 120_000);

  it.each([
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const)(
    'at %s during a running cell, exits %i leaving no container, no loop mount and nothing unfinished',
    async (signal, code) => {
      const server = await model();
      const child = start(['chat'], server);
      const marker = `started-${signal}`;
      child.stdin?.write(`\`\`\`python\n${SLEEPING_CELL(marker)}\n\`\`\`\n`);
      await vi.waitFor(
        async () => {
          if (!(await workspaceHas(marker))) throw new Error(`the cell has not started yet:\n${child.output()}`);
        },
        { timeout: 60_000, interval: 200 },
      );
      const workspaces = join(home, 'workspaces', instance);
      expect(await containersOf(instance)).toHaveLength(1);
      expect(mountsUnder(workspaces), 'the session disk is loop-mounted while it runs').toHaveLength(1);

      child.kill(signal);
      // The cell sleeps for ten minutes: exiting means it was interrupted, not waited for.
      expect(await child.exited, child.output()).toBe(code);
      expect(await containersOf(instance)).toEqual([]);
      expect(mountsUnder(workspaces)).toEqual([]);
      expect(loopDevicesUnder(workspaces)).toEqual([]);
      expect(child.output()).toContain('Cancelled: The cell was cancelled.');
      // Said on a terminal that is still there; after SIGHUP no one would read it.
      expect(child.output().includes('stopping: cancelling the running turn')).toBe(signal === 'SIGINT');
      expect(await unfinishedThreads()).toEqual([]);
      expect(chatRequests(server)).toBe(0);
    },
    120_000,
  );
});

describe('tally ask', () => {
  it('at SIGINT during a running cell, exits 130 leaving no container and no loop mount', async () => {
    const server = await model([
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_python', { code: SLEEPING_CELL('started-ask') }),
    ]);
    const child = start(['ask', 'How long does this take?'], server);
    await vi.waitFor(
      async () => {
        if (!(await workspaceHas('started-ask'))) throw new Error(`the cell has not started yet:\n${child.output()}`);
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(await containersOf(instance)).toHaveLength(1);
    child.kill('SIGINT');
    expect(await child.exited, child.output()).toBe(130);
    expect(await containersOf(instance)).toEqual([]);
    expect(mountsUnder(join(home, 'workspaces', instance))).toEqual([]);
    expect(await unfinishedThreads()).toEqual([]);
  }, 120_000);
});

/** Threads with messages left unfinished in the store, which a chat service on it would pick up. */
async function unfinishedThreads(): Promise<string[]> {
  const store = await createStore({
    sqlitePath: join(home, 'state.db'),
    logger: createLogger({ level: 'silent' }),
  });
  try {
    return await new Inbox(store).unfinishedThreads();
  } finally {
    await store.close();
  }
}
