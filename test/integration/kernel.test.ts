import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerKernel } from '../../sandbox/docker-kernel.js';
import { KernelClosedError, WorkspacePathError } from '../../src/base/errors.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { cleanUp } from '../support/clean-up.js';
import { docker } from '../support/docker.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let fixture: TestSandbox;
let kernel: Kernel;

beforeAll(async () => {
  fixture = await startTestSandbox({ limits: { memoryMb: 384 } });
  kernel = await fixture.sandbox.acquire('kernel-test');
});
afterAll(async () => fixture?.close());

async function value(code: string): Promise<string | undefined> {
  const execution = await kernel.run(code);
  expect(execution.error).toBeUndefined();
  return execution.result?.text;
}

describe('a session kernel', () => {
  it('keeps state across cells', async () => {
    await kernel.run('total = 40');
    await kernel.run('total += 2');
    expect(await value('total')).toBe('42');
  });

  it('shows the last expression like IPython, and a trailing semicolon hides it', async () => {
    const execution = await kernel.run('print("side effect")\n{"a": 1}');
    expect(execution.stdout).toBe('side effect\n');
    expect(execution.result).toEqual({ type: 'dict', text: "{'a': 1}" });
    expect((await kernel.run('1 + 1;')).result).toBeUndefined();
    expect((await kernel.run('x = 5')).result).toBeUndefined();
  });

  it('shows a DataFrame as a readable table with its shape', async () => {
    const execution = await kernel.run(
      'import pandas as pd\ndf = pd.DataFrame({"tenure": range(1, 101), "churn": ["Yes", "No"] * 50})\ndf',
    );
    expect(execution.result?.type).toBe('DataFrame');
    expect(execution.result?.shape).toEqual([100, 2]);
    const text = execution.result?.text ?? '';
    expect(text).toMatch(/tenure\s+churn/);
    expect(text).toContain('[100 rows x 2 columns]');
    expect(text.split('\n').length).toBeLessThan(30);
  });

  it('captures stderr, warnings and output of subprocesses', async () => {
    const execution = await kernel.run(
      'import sys, os, warnings\nprint("to stderr", file=sys.stderr)\nwarnings.warn("careful")\nos.system("echo from a subprocess")',
    );
    expect(execution.stderr).toContain('to stderr');
    expect(execution.stderr).toContain('UserWarning: careful');
    expect(execution.stdout).toContain('from a subprocess');
  });

  it('returns every open matplotlib figure as a PNG and closes them', async () => {
    const execution = await kernel.run(
      'import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3)); plt.plot([1, 3, 2])\nplt.figure(); plt.bar(["a", "b"], [2, 5]);',
    );
    expect(execution.error).toBeUndefined();
    expect(execution.figures).toHaveLength(2);
    for (const figure of execution.figures) {
      expect(figure.png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(figure.png.readUInt32BE(16)).toBeGreaterThan(100); // IHDR width
      expect(figure.png.readUInt32BE(20)).toBeGreaterThan(100); // IHDR height
    }
    expect(execution.figures[0]?.width).toBe(400);
    expect((await kernel.run('1')).figures).toHaveLength(0);
  });

  it("names each figure by its title and describes its axes, for the chart's alt text", async () => {
    const execution = await kernel.run(
      [
        'import matplotlib.pyplot as plt',
        'fig, ax = plt.subplots(); ax.bar(["a", "b"], [2, 5]); ax.set_title("Churn by plan"); ax.set_xlabel("plan"); ax.set_ylabel("rate")',
        'fig2 = plt.figure(); fig2.suptitle("Overview"); plt.plot([1, 2])',
        'plt.figure(); plt.plot([3, 1])',
      ].join('\n'),
    );
    expect(execution.figures.map((figure) => [figure.title, figure.description])).toEqual([
      ['Churn by plan', "Chart 'Churn by plan'; x axis: plan; y axis: rate"],
      ['Overview', undefined],
      [undefined, undefined],
    ]);
  });

  it('draws in the house style: percent ticks and value labels for a share, a colour-blind-safe palette', async () => {
    const execution = await kernel.run(
      [
        'import json, matplotlib as mpl, matplotlib.pyplot as plt, chart_finish',
        'fig, ax = plt.subplots()',
        'ax.barh(["Month-to-month", "One year", "Two year"], [0.427, 0.113, 0.029])',
        'ax.set_title("Churn rate by contract"); ax.set_xlabel("churn rate")',
        'chart_finish.finish_figure(fig); fig.canvas.draw()',
        'counts, cx = plt.subplots(); cx.bar(["a", "b"], [1200, 345]); cx.set_title("Customers"); cx.set_ylabel("count")',
        'chart_finish.finish_figure(counts); counts.canvas.draw()',
        'print(json.dumps({',
        '  "ticks": [t.get_text() for t in ax.get_xticklabels()],',
        '  "labels": [t.get_text() for t in ax.texts],',
        '  "count_labels": [t.get_text() for t in cx.texts],',
        '  "count_ticks_plain": "%" not in "".join(t.get_text() for t in cx.get_yticklabels()),',
        '  "palette": mpl.rcParams["axes.prop_cycle"].by_key()["color"][:3],',
        '  "grid": mpl.rcParams["axes.grid"],',
        '}))',
        'plt.close("all")',
      ].join('\n'),
    );
    expect(execution.error).toBeUndefined();
    const seen = JSON.parse(execution.stdout) as Record<string, unknown>;
    expect((seen.ticks as string[]).filter((tick) => tick !== '').every((tick) => tick.endsWith('%'))).toBe(true);
    expect(seen.labels).toEqual(['42.7%', '11.3%', '2.9%']);
    expect(seen.count_labels).toEqual(['1,200', '345']);
    expect(seen.count_ticks_plain).toBe(true);
    expect(seen.palette).toEqual(['#0072B2', '#E69F00', '#009E73']);
    expect(seen.grid).toBe(true);
    // The same touches on a chart a cell leaves open: it still arrives titled and described.
    const shown = await kernel.run(
      'import matplotlib.pyplot as plt\nplt.bar(["a", "b"], [0.2, 0.6]); plt.title("Share of churners"); plt.ylabel("share")',
    );
    expect(shown.figures.map((figure) => figure.description)).toEqual(["Chart 'Share of churners'; y axis: share"]);
  });

  it('renders a share chart finished in the house style with its title, labelled axes and percent ticks', async () => {
    // The same figure the kernel captures as PNG, rendered as SVG with text kept as text, so the
    // drawn output itself can be read: what a person sees, not only the figure's objects.
    const execution = await kernel.run(
      [
        'import io, matplotlib.pyplot as plt, chart_finish',
        'fig, ax = plt.subplots()',
        'ax.bar(["Month-to-month", "One year", "Two year"], [0.427, 0.113, 0.029])',
        'ax.set_title("Churn rate by contract"); ax.set_ylabel("churn rate"); ax.set_xlabel("contract")',
        'chart_finish.finish_figure(fig)',
        'svg = io.StringIO()',
        'with plt.rc_context({"svg.fonttype": "none"}): fig.savefig(svg, format="svg")',
        'plt.close("all")',
        'print(svg.getvalue())',
      ].join('\n'),
      { outputLimitBytes: 2_000_000 },
    );
    expect(execution.error).toBeUndefined();
    const drawn = [...execution.stdout.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((match) => match[1] ?? '');
    expect(drawn).toContain('Churn rate by contract');
    expect(drawn).toEqual(expect.arrayContaining(['churn rate', 'contract', 'Month-to-month', 'Two year']));
    const ticks = drawn.filter((text) => /^\d+(\.\d+)?%$/.test(text));
    expect(ticks.length).toBeGreaterThanOrEqual(5); // the y ticks and the bars' value labels
    expect(drawn).toEqual(expect.arrayContaining(['42.7%', '11.3%', '2.9%']));
  });

  it('returns user errors as data with a traceback that starts in the cell', async () => {
    const execution = await kernel.run('def ratio(a, b):\n    return a / b\n\nratio(1, 0)');
    expect(execution.error?.name).toBe('ZeroDivisionError');
    expect(execution.error?.value).toBe('division by zero');
    expect(execution.error?.traceback).toMatch(/File "<cell-\d+>", line 4/);
    expect(execution.error?.traceback).toContain('return a / b');
    expect(execution.error?.traceback).not.toContain('driver.py');
    const missing = await kernel.run('df["no_such_column"]');
    expect(missing.error?.name).toBe('KeyError');
    expect(missing.error?.value).toBe("'no_such_column'");
    const syntax = await kernel.run('for x in');
    expect(syntax.error?.name).toBe('SyntaxError');
    expect(syntax.error?.traceback).toContain('for x in');
    expect(await value('total')).toBe('42');
  });

  it('treats exit(), sys.exit() and input() as errors of the cell, not of the kernel', async () => {
    expect((await kernel.run('import sys\nsys.exit(3)')).error?.name).toBe('SystemExit');
    expect((await kernel.run('exit()')).error?.name).toBe('SystemExit');
    expect((await kernel.run('input("name? ")')).error?.name).toBe('EOFError');
    expect(await value('total')).toBe('42');
  });

  it('round-trips unicode in code, output and values', async () => {
    const execution = await kernel.run('ville = "Zürich 東京 🚀"\nprint(ville)\nville');
    expect(execution.stdout).toBe('Zürich 東京 🚀\n');
    expect(execution.result?.text).toBe("'Zürich 東京 🚀'");
    const frame = await kernel.run('pd.DataFrame({"città": ["Málaga", "Ørsted"]})');
    expect(frame.result?.text).toContain('Ørsted');
  });

  it('caps output, keeping head and tail and saying how much was left out', async () => {
    const execution = await kernel.run('print("HEAD" + "x" * 1_000_000 + "TAIL")', { outputLimitBytes: 10_000 });
    expect(execution.stdoutBytes).toBe(1_000_009);
    expect(execution.stdout.length).toBeLessThan(10_200);
    expect(execution.stdout.startsWith('HEADxxx')).toBe(true);
    expect(execution.stdout.trimEnd().endsWith('xxxTAIL')).toBe(true);
    expect(execution.stdout).toMatch(/\[990\d+ bytes omitted; 1000009 bytes in all\]/);
  });

  it('caps the value and traceback of an error like output', async () => {
    const execution = await kernel.run('raise ValueError("HEAD" + "x" * 20_000_000 + "TAIL")', {
      outputLimitBytes: 10_000,
    });
    expect(execution.error?.name).toBe('ValueError');
    const { value = '', traceback = '' } = execution.error ?? {};
    expect(value.length).toBeLessThan(10_200);
    expect(value.startsWith('HEADxxx')).toBe(true);
    expect(value.endsWith('xxxTAIL')).toBe(true);
    expect(value).toMatch(/\[\d+ bytes omitted; 20000008 bytes in all\]/);
    expect(traceback.length).toBeLessThan(10_200);
    expect(traceback).toMatch(/^Traceback[\s\S]*File "<cell-\d+>", line 1/);
    expect(traceback.trimEnd().endsWith('xxxTAIL')).toBe(true);
    const byDefault = await kernel.run('raise KeyError("k" * 20_000_000)');
    expect(byDefault.error?.value.length).toBeLessThan(70 * 1024);
    expect(byDefault.error?.traceback.length).toBeLessThan(70 * 1024);
  });

  it('accepts a larger output limit for one run, even for output that escapes badly', async () => {
    const execution = await kernel.run('print("\\x01" * 6_000_000, end="")', { outputLimitBytes: 7_000_000 });
    expect(execution.error).toBeUndefined();
    expect(execution.stdout).toHaveLength(6_000_000);
  });

  it('captures at most ten figures and says so', async () => {
    const execution = await kernel.run('for i in range(12):\n    plt.figure(); plt.plot([i, i + 1])');
    expect(execution.figures).toHaveLength(10);
    expect(execution.stderr).toContain('2 figures were not captured');
  });

  it('interrupts a cell that runs past its timeout and keeps the variables', async () => {
    await kernel.run('survivor = "still here"');
    const execution = await kernel.run('import time\nfor _ in range(600):\n    time.sleep(0.05)', { timeoutMs: 1000 });
    expect(execution.timedOut).toBe(true);
    expect(execution.error?.name).toBe('TimeoutError');
    expect(execution.error?.value).toContain('timeoutMs');
    expect(execution.error?.traceback).toContain('time.sleep(0.05)');
    expect(execution.restarted).toBeUndefined();
    expect(await value('survivor')).toBe("'still here'");
  });

  it('restarts a kernel that ignores the interrupt, and replays the journal', async () => {
    const execution = await kernel.run(
      'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)',
      { timeoutMs: 1000 },
    );
    expect(execution.timedOut).toBe(true);
    expect(execution.error?.name).toBe('TimeoutError');
    expect(execution.restarted?.reason).toBe('unresponsive');
    expect(execution.restarted?.replayedCells).toBeGreaterThan(3);
    expect(await value('survivor')).toBe("'still here'");
    expect(await value('total')).toBe('42');
  });

  it('cancels a running cell through an AbortSignal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const execution = await kernel.run('import time\ntime.sleep(30)', { signal: controller.signal });
    expect(execution.error?.name).toBe('Cancelled');
    expect(execution.timedOut).toBe(false);
    expect(await value('survivor')).toBe("'still here'");
  });

  it('does not run a cell cancelled before its turn', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const execution = await kernel.run('never_ran = True', { signal: aborted.signal });
    expect(execution.error?.name).toBe('Cancelled');
    const ahead = kernel.run('import time\ntime.sleep(0.5)');
    const whileQueued = new AbortController();
    const queued = kernel.run('queued_ran = True', { signal: whileQueued.signal });
    whileQueued.abort();
    expect((await ahead).error).toBeUndefined();
    expect((await queued).error?.name).toBe('Cancelled');
    expect((await kernel.run('never_ran')).error?.name).toBe('NameError');
    expect((await kernel.run('queued_ran')).error?.name).toBe('NameError');
  });

  it('interrupts a cell while it shows its value or renders its figures, without a restart', async () => {
    const repr = await kernel.run(
      'class SlowRepr:\n    def __repr__(self):\n        import time\n        time.sleep(60)\n\nSlowRepr()',
      { timeoutMs: 1000 },
    );
    expect(repr.error?.name).toBe('TimeoutError');
    expect(repr.error?.traceback).toContain('__repr__');
    expect(repr.restarted).toBeUndefined();
    const figure = await kernel.run(
      'import time, matplotlib.artist, matplotlib.pyplot as plt\nclass SlowArtist(matplotlib.artist.Artist):\n    def draw(self, renderer):\n        time.sleep(60)\n\nplt.figure().add_artist(SlowArtist())\nslow_figure_cell = True',
      { timeoutMs: 1000 },
    );
    expect(figure.error?.name).toBe('TimeoutError');
    expect(figure.restarted).toBeUndefined();
    // The cell's own code ran (not journaled: it failed); its figure was closed.
    expect((await kernel.run('slow_figure_cell', { journal: false })).result?.text).toBe('True');
    expect((await kernel.run('1')).figures).toHaveLength(0);
    expect(await value('survivor')).toBe("'still here'");
  });

  it('interrupts a cell whose request is still arriving when its time is up', async () => {
    // 30 MB of code take longer to arrive and compile than the 20 ms limit; the interrupt is kept.
    const code = `# ${'x'.repeat(30_000_000)}\nimport time\ntime.sleep(60)`;
    const execution = await kernel.run(code, { timeoutMs: 20, journal: false });
    expect(execution.error?.name).toBe('TimeoutError');
    expect(execution.restarted).toBeUndefined();
    expect(await value('survivor')).toBe("'still here'");
  });

  it('caps a time limit beyond what timers hold instead of firing it at once', async () => {
    const execution = await kernel.run('import time\ntime.sleep(0.3)\n"slept"', { timeoutMs: 3_000_000_000 });
    expect(execution.error).toBeUndefined();
    expect(execution.result?.text).toBe("'slept'");
  });

  it('interrupts on request', async () => {
    const running = kernel.run('import time\ntime.sleep(30)');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await kernel.interrupt();
    const execution = await running;
    expect(execution.error?.name).toBe('KeyboardInterrupt');
    expect(await value('survivor')).toBe("'still here'");
  });

  it('reports a kernel that dies while it is being interrupted as dead', async () => {
    const execution = await kernel.run(
      'import os, signal, time\nsignal.signal(signal.SIGINT, lambda *_: os._exit(5))\ntime.sleep(30)',
      { timeoutMs: 1000 },
    );
    expect(execution.timedOut).toBe(true);
    expect(execution.error?.name).toBe('KernelDied');
    expect(execution.error?.value).toContain('exited with code 5');
    expect(execution.restarted).toMatchObject({ reason: 'died', exitCode: 5, oomLikely: false, failedReplays: 0 });
    expect(await value('survivor')).toBe("'still here'");
  });

  it('restarts after running out of memory and brings earlier variables back', async () => {
    await kernel.run('before_oom = [1, 2, 3]');
    const before = (kernel as DockerKernel).containerId;
    const execution = await kernel.run("hog = b'x' * (2 * 1024**3)");
    expect(execution.error?.name).toBe('KernelDied');
    expect(execution.error?.value).toContain('out of memory');
    expect(execution.error?.value).toContain('TALLY_SANDBOX_MEMORY_MB');
    expect(execution.restarted).toMatchObject({ reason: 'died', exitCode: 137, oomLikely: true, failedReplays: 0 });
    expect(await value('before_oom')).toBe('[1, 2, 3]');
    expect(await value('df.shape')).toBe('(100, 2)');
    expect((await kernel.run('hog')).error?.name).toBe('NameError');
    // A fresh container on the same workspace, and the dead one is gone.
    expect((kernel as DockerKernel).containerId).not.toBe(before);
    await expect(docker.getContainer(before).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('reports a later death by its own cause, not as another out-of-memory', async () => {
    // Under runc Docker's OOMKilled flag is set when any process of the container was OOM-killed, a child too
    // ('a child that runs out of memory' below makes one); whatever set it, a later death has its own cause.
    const exit = await kernel.run('import os\nos._exit(3)');
    expect(exit.error?.value).toContain('exited with code 3');
    expect(exit.restarted).toMatchObject({ reason: 'died', exitCode: 3, oomLikely: false });
    const execution = await kernel.run('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)');
    expect(execution.error?.value).toContain('killed (exit 137');
    expect(execution.error?.value).not.toContain('out of memory');
    expect(execution.restarted).toMatchObject({ reason: 'died', exitCode: 137, oomLikely: false });
  });

  it('notices a kernel that died between cells and restarts it before the next one', async () => {
    // Not journaled: a replay would arm the timer again.
    await kernel.run('import os, threading\nthreading.Timer(0.2, os._exit, [0]).start()', { journal: false });
    // Dead before the next cell is sent, however slow the machine: a fixed wait once sent it to a dying kernel
    // (a loaded run, 2026-11-30), which is the other case (a death during a cell).
    const container = docker.getContainer((kernel as DockerKernel).containerId);
    const running = () =>
      container.inspect().then(
        (info) => info.State.Running,
        () => false,
      );
    for (let waited = 0; (await running()) && waited < 30_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const execution = await kernel.run('survivor.upper()');
    expect(execution.result?.text).toBe("'STILL HERE'");
    expect(execution.restarted).toMatchObject({ reason: 'died', exitCode: 0 });
  });

  it('restarts on request, replaying only cells that succeeded', async () => {
    await kernel.run('half_done = 1\nraise ValueError("no")');
    const restart = await kernel.restart();
    expect(restart.reason).toBe('requested');
    expect(restart.failedReplays).toBe(0);
    expect(await value('survivor')).toBe("'still here'");
    expect((await kernel.run('half_done')).error?.name).toBe('NameError');
  });

  it('runs concurrent calls one at a time, in order', async () => {
    await kernel.run('order = []');
    const runs = [1, 2, 3, 4].map((n) => kernel.run(`import time\ntime.sleep(0.05)\norder.append(${n})`));
    for (const execution of await Promise.all(runs)) expect(execution.error).toBeUndefined();
    expect(await value('order')).toBe('[1, 2, 3, 4]');
  });

  it('delivers inputs read-only and reads back what the kernel wrote', async () => {
    await kernel.writeFile('uploads/input.csv', 'a,b\n1,2\n3,4\n');
    expect(await value('import pandas as pd\npd.read_csv("/inputs/uploads/input.csv").b.sum()')).toBe('6');
    const tamper = await kernel.run('open("/inputs/uploads/input.csv", "a").write("5,6")');
    expect(['PermissionError', 'OSError']).toContain(tamper.error?.name);
    const create = await kernel.run('open("/inputs/new.txt", "w")');
    expect(create.error?.value).toMatch(/Read-only file system|Permission denied/);
    await kernel.run('import os\nos.makedirs("out", exist_ok=True)\nopen("out/result.txt", "w").write("done")');
    expect((await kernel.readFile('out/result.txt')).toString()).toBe('done');
    await expect(kernel.readFile('../escape')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(kernel.writeFile('/etc/passwd', 'x')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(kernel.readFile('out/result.txt', { maxBytes: 2 })).rejects.toThrow(/maxBytes/);
  });

  it('refuses links planted in the workspace that point at host files', async () => {
    await kernel.run('import os\nos.symlink("/etc/hostname", "host_file")\nos.symlink("/etc", "host_dir")');
    await expect(kernel.readFile('host_file')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(kernel.readFile('host_dir/hostname')).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it('is gone after dispose: container and workspace removed, runs refused', async () => {
    const other = (await fixture.sandbox.acquire('to-dispose')) as DockerKernel;
    await other.run('1');
    const { containerId, workspacePath } = other;
    await other.dispose();
    await expect(docker.getContainer(containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    const { existsSync } = await import('node:fs');
    expect(existsSync(workspacePath)).toBe(false);
    await expect(other.run('1')).rejects.toBeInstanceOf(KernelClosedError);
    await other.dispose();
  });
});

describe('replaying the journal', () => {
  it('replays each cell under its own time limit, and goes on past a cell that fails on replay', async () => {
    const own = await startTestSandbox({ cellTimeoutMs: 1000 });
    try {
      const replaying = await own.sandbox.acquire('replay');
      // Longer than the default limit, allowed by its own.
      expect(
        (await replaying.run('import time\ntime.sleep(1.5)\nslow = "done"', { timeoutMs: 5000 })).error,
      ).toBeUndefined();
      // Succeeds the first time; on replay it finds its marker in /workspace and hangs past its limit.
      const stuck =
        'import os, time\nif os.path.exists("ran"):\n    time.sleep(60)\nopen("ran", "w").close()\nstuck = True';
      expect((await replaying.run(stuck, { timeoutMs: 2000 })).error).toBeUndefined();
      expect((await replaying.run('after = "replayed too"')).error).toBeUndefined();
      const restart = await replaying.restart();
      expect(restart).toMatchObject({ reason: 'requested', replayedCells: 2, failedReplays: 1 });
      expect((await replaying.run('slow')).result?.text).toBe("'done'");
      expect((await replaying.run('after')).result?.text).toBe("'replayed too'");
      expect((await replaying.run('stuck')).error?.name).toBe('NameError');
    } finally {
      await own.close();
    }
  });
});

describe('a child that runs out of memory', () => {
  const sandboxes: TestSandbox[] = [];
  afterAll(() => cleanUp(...sandboxes.map((own) => () => own.close())));

  /** A kernel of its own under `runtime`, holding a variable to come back. */
  async function kernelUnder(runtime: 'runc' | 'runsc'): Promise<Kernel> {
    const own = await startTestSandbox({ runtime, limits: { memoryMb: 384 } });
    sandboxes.push(own);
    const child = await own.sandbox.acquire(`oom-${runtime}`);
    await child.run('kept = 42');
    return child;
  }

  // The child asks to be the OOM killer's first pick (raising one's own score needs no privilege), so the
  // host's choice does not hang on how much the kernel and the child hold when the limit is reached.
  const CHILD_OOM = [
    'import subprocess, sys',
    "CHILD = \"import contextlib\\nwith contextlib.suppress(OSError):\\n    open('/proc/self/oom_score_adj', 'w').write('1000')\\nb = bytearray(2 * 1024**3)\"",
    'subprocess.run([sys.executable, "-c", CHILD]).returncode',
  ].join('\n');

  it('is killed alone under runc, and a later death is still told by its own cause', async () => {
    const child = await kernelUnder('runc');
    const outcome = await child.run(CHILD_OOM, { journal: false });
    // The host kernel's OOM killer picks the child; the kernel lives on (the whole outcome shows when it does not).
    expect(outcome).toMatchObject({ result: { text: '-9' } });
    expect(outcome.restarted).toBeUndefined();
    // Docker's OOMKilled flag is now set on this container: a later death has its own cause all the same.
    const exit = await child.run('import os\nos._exit(3)');
    expect(exit.restarted).toMatchObject({ reason: 'died', exitCode: 3, oomLikely: false });
    expect((await child.run('kept')).result?.text).toBe('42');
  });

  it('takes the whole kernel under gVisor (one process in the memory cgroup), which comes back', async () => {
    const child = await kernelUnder('runsc');
    const outcome = await child.run(CHILD_OOM, { journal: false });
    expect(outcome.error?.value).toContain('ran out of memory');
    expect(outcome.restarted).toMatchObject({ reason: 'died', oomLikely: true });
    expect((await child.run('kept')).result?.text).toBe('42');
  });
});
