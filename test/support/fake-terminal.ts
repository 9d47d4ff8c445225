/**
 * Output streams for console tests: `FakeTerminal` is a TTY (`isTTY`, `columns`, `rows`) that keeps
 * what a person would see, applying the few ANSI sequences the console uses (cursor up, clear line,
 * clear to the end of the screen); `PlainOutput` is a pipe that only collects what was written.
 */
import type { ConsoleOutput } from '../../adapters/console/console-progress.js';

const TOKENS = new RegExp(
  `${String.fromCharCode(27)}\\[(\\d*)([A-Za-z])|\\r|\\n|[^\\r\\n${String.fromCharCode(27)}]+`,
  'g',
);

export class FakeTerminal {
  readonly isTTY = true;
  readonly writes: string[] = [];
  private readonly screen: string[] = [''];
  private row = 0;
  private column = 0;

  constructor(
    readonly columns = 100,
    readonly rows = 40,
  ) {}

  /** This terminal as the console's output stream (only `write` is used). */
  get stream(): ConsoleOutput {
    return this as unknown as ConsoleOutput;
  }

  write(chunk: string | Uint8Array): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    this.writes.push(text);
    for (const match of text.matchAll(TOKENS)) this.apply(match[0], match[1], match[2]);
    return true;
  }

  /** The screen's lines as they stand, without trailing spaces or the empty last line. */
  get lines(): string[] {
    const lines = this.screen.map((line) => line.trimEnd());
    return lines.at(-1) === '' ? lines.slice(0, -1) : lines;
  }

  private apply(token: string, count: string | undefined, command: string | undefined): void {
    const current = this.screen[this.row] ?? '';
    if (command === 'A') this.row = Math.max(0, this.row - Number(count || 1));
    else if (command === 'K') this.screen[this.row] = count === '2' ? '' : current.slice(0, this.column);
    else if (command === 'J') {
      this.screen.length = this.row + 1;
      this.screen[this.row] = current.slice(0, this.column);
    } else if (command !== undefined) throw new Error(`unexpected escape sequence ${JSON.stringify(token)}`);
    else if (token === '\r') this.column = 0;
    else if (token === '\n') {
      this.row += 1;
      this.column = 0;
      if (this.row >= this.screen.length) this.screen.push('');
    } else {
      const line = current.padEnd(this.column);
      this.screen[this.row] = line.slice(0, this.column) + token + line.slice(this.column + token.length);
      this.column += token.length;
    }
  }
}

/** A pipe: no `isTTY`; everything written, in order. */
export class PlainOutput {
  text = '';

  get stream(): ConsoleOutput {
    return this as unknown as ConsoleOutput;
  }

  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }
}
