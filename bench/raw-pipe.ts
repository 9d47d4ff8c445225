/**
 * Anchor a, the floor: a bare Python loop in the same image and hardened container, reached over
 * the same attached stdin/stdout stream (hijacked attach, demultiplexed) as the kernel channel.
 * It evaluates one line and writes back its repr: no JSON, no output capture, no display.
 */
import { attachStdio } from '../sandbox/attach-stdio.js';
import { anchorSpec, withContainer } from './anchor-container.js';
import { type BenchSettings, BIG_OUTPUTS, COUNTS } from './bench-settings.js';
import type { OurRoundTrips } from './measure-sandbox.js';
import { sampleInterleaved } from './stats.js';

// Replies are written in a loop, as the driver writes its own: under gVisor a write to the host's pipe may take
// part of the bytes, and Python's unbuffered stdout (-u) would drop the rest.
const LOOP = `
import os, sys
namespace = {}
def send(text):
    view = memoryview(text.encode())
    while view:
        view = view[os.write(1, view):]
send("ready\\n")
while True:
    line = sys.stdin.readline()
    if not line:
        break
    try:
        value = eval(line, namespace)
    except SyntaxError:
        exec(line, namespace)
        value = None
    send(repr(value) + "\\n")
`;

const REPLY_TIMEOUT_MS = 60_000;

export interface RawPipeSamples {
  trivialMs: number[];
  /** Our kernel's samples, taken in blocks alternating with the raw pipe's. */
  oursTrivialMs: number[];
  /** Per large output (BigOutput.key): the raw pipe's samples and ours, alternating likewise. */
  outputs: Record<string, { rawPipeMs: number[]; oursMs: number[] }>;
}

/** Newline-separated replies, handed out in order. */
class ReplyLines {
  private partial: Buffer[] = [];
  private readonly lines: Buffer[] = [];
  private readonly waiters: Array<{ resolve: (line: Buffer) => void; reject: (error: Error) => void }> = [];
  private ended: Error | undefined;

  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.partial.push(chunk.subarray(start, newline));
      this.deliver(Buffer.concat(this.partial));
      this.partial = [];
      start = newline + 1;
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
  }

  end(error: Error): void {
    this.ended = error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  next(): Promise<Buffer> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply within ${REPLY_TIMEOUT_MS} ms`)), REPLY_TIMEOUT_MS);
      this.waiters.push({
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  private deliver(line: Buffer): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(line);
    else this.lines.push(line);
  }
}

export function measureRawPipe(settings: BenchSettings, ours: OurRoundTrips): Promise<RawPipeSamples> {
  const spec = anchorSpec(settings, { role: 'raw-pipe', cmd: ['python3', '-u', '-c', LOOP] });
  return withContainer(settings.docker, spec, async (container) => {
    const { stream, stdout, stderr } = await attachStdio(container);
    let stderrTail = '';
    const replies = new ReplyLines();
    stdout.on('data', (chunk: Buffer) => replies.push(chunk));
    stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    stream.on('end', () => replies.end(new Error(`the raw Python loop exited: ${stderrTail.trim()}`)));
    try {
      await container.start();
      const ready = (await replies.next()).toString('utf8');
      if (ready !== 'ready') throw new Error(`the raw Python loop said ${JSON.stringify(ready)} instead of ready`);
      const roundTrip = async (expression: string, accept: (reply: Buffer) => boolean) => {
        stream.write(`${expression}\n`);
        const reply = await replies.next();
        if (!accept(reply)) throw new Error(`the raw loop replied ${reply.length} bytes to ${expression}`);
      };
      const trivial = () => roundTrip('1', (reply) => reply.toString('utf8') === '1');
      const [trivialMs, oursTrivialMs] = await sampleInterleaved(trivial, ours.trivial, {
        warmup: COUNTS.trivialWarmup,
        iterations: COUNTS.trivialIterations,
      });
      const outputs: RawPipeSamples['outputs'] = {};
      for (const output of BIG_OUTPUTS) {
        const raw = () => roundTrip(output.expression, (reply) => reply.length >= output.minChars);
        const [rawPipeMs, oursMs] = await sampleInterleaved(raw, () => ours.output(output), {
          warmup: output.warmup,
          iterations: output.iterations,
          blocks: 5,
        });
        outputs[output.key] = { rawPipeMs, oursMs };
      }
      return { trivialMs, oursTrivialMs, outputs };
    } finally {
      stream.destroy();
    }
  });
}
