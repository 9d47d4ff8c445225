/**
 * Splits a byte stream into JSON messages, one per line, without letting the sender make the host
 * hold much: a line whose first bytes are not the expected prefix is dropped as garbage as soon as
 * that shows (only a short sample is kept), and a line longer than the cap is dropped as it grows.
 * Blank lines are skipped; lines that are not JSON objects are reported as garbage.
 */

export interface JsonLineHandlers {
  message: (value: Record<string, unknown>) => void;
  garbage: (sample: string) => void;
  oversize: (bytes: number) => void;
}

const SAMPLE_BYTES = 200;

type LineState = 'reading' | 'garbage' | 'oversize';

export class JsonLineReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private state: LineState = 'reading';
  /** How many bytes of the line have matched the prefix so far. */
  private matched = 0;
  private readonly prefix: Buffer;

  constructor(
    /** Lines longer than this are dropped and reported; may be changed between lines. */
    public maxLineBytes: number,
    private readonly on: JsonLineHandlers,
    /** What every line must start with, e.g. `{"v":1,`; empty accepts any. */
    prefix = '',
  ) {
    this.prefix = Buffer.from(prefix);
  }

  /** Bytes held for the line being read (at most a sample while it is dropped). */
  get bufferedBytes(): number {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  push(data: Buffer): void {
    let start = 0;
    for (let newline = data.indexOf(10, start); newline !== -1; newline = data.indexOf(10, start)) {
      this.append(data.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
    }
    this.append(data.subarray(start));
  }

  private append(part: Buffer): void {
    if (part.length === 0) return;
    const before = this.length;
    this.length += part.length;
    if (this.state === 'oversize') return;
    if (this.state === 'garbage') {
      if (before < SAMPLE_BYTES) this.chunks.push(Buffer.from(part.subarray(0, SAMPLE_BYTES - before)));
      return;
    }
    if (!this.matchesPrefix(part)) {
      this.state = 'garbage';
      this.chunks.push(Buffer.from(part.subarray(0, Math.max(0, SAMPLE_BYTES - before))));
      this.chunks = [Buffer.concat(this.chunks).subarray(0, SAMPLE_BYTES)];
      return;
    }
    if (this.length > this.maxLineBytes) {
      this.state = 'oversize';
      this.chunks = [];
      return;
    }
    this.chunks.push(part);
  }

  private matchesPrefix(part: Buffer): boolean {
    for (let index = 0; this.matched < this.prefix.length && index < part.length; index += 1) {
      if (part[index] !== this.prefix[this.matched]) return false;
      this.matched += 1;
    }
    return true;
  }

  private finishLine(): void {
    const { length, state } = this;
    const line = state === 'oversize' ? '' : Buffer.concat(this.chunks).toString('utf8');
    this.chunks = [];
    this.length = 0;
    this.state = 'reading';
    const complete = this.matched === this.prefix.length;
    this.matched = 0;
    if (length === 0) return;
    if (state === 'oversize') {
      this.on.oversize(length);
      return;
    }
    const value = state === 'reading' && complete ? parseObject(line) : undefined;
    if (value === undefined) this.on.garbage(line.slice(0, SAMPLE_BYTES));
    else this.on.message(value);
  }
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
