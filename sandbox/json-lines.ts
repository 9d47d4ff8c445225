/**
 * Splits a byte stream into JSON messages, one per line, with a hard cap on line length so a
 * flood without newlines cannot exhaust host memory. Blank lines are skipped; lines that are not
 * JSON objects are reported as garbage and dropped.
 */

export interface JsonLineHandlers {
  message: (value: Record<string, unknown>) => void;
  garbage: (sample: string) => void;
  oversize: (bytes: number) => void;
}

export class JsonLineReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private discarding = false;

  constructor(
    /** Lines longer than this are dropped and reported; may be changed between lines. */
    public maxLineBytes: number,
    private readonly on: JsonLineHandlers,
  ) {}

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
    this.length += part.length;
    if (this.discarding) return;
    if (this.length > this.maxLineBytes) {
      this.discarding = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(part);
  }

  private finishLine(): void {
    const length = this.length;
    const discarded = this.discarding;
    const line = discarded ? '' : Buffer.concat(this.chunks, length).toString('utf8');
    this.chunks = [];
    this.length = 0;
    this.discarding = false;
    if (discarded) {
      this.on.oversize(length);
      return;
    }
    if (line.trim() === '') return;
    const value = parseObject(line);
    if (value === undefined) this.on.garbage(line.slice(0, 200));
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
