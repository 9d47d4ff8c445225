/**
 * The console as a chat platform: one thread, lines in, posts out. Charts are saved as PNG files
 * and their paths printed. A fenced ``` block may span lines; it is sent when it closes. A turn's
 * progress is a live block on a terminal and plain lines elsewhere (console-progress.ts). `exit`,
 * `quit`, `help`, `new` and `share PATH` are the console's own (console-commands.ts), taken in turn with the
 * messages.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { ChatAdapter, Inbound, MessageRef, Post, SharedFile, ThreadKey } from '../../src/ports/chat.js';
import { localSharedFile } from '../../src/sessions/local-shared-file.js';
import { chartsAbove } from '../common/post-text.js';
import { CONSOLE_HELP, isStop, parseConsoleCommand, parseShare } from './console-commands.js';
import { type ConsoleOutput, ConsoleProgress } from './console-progress.js';
import { renderPost } from './render-post.js';

export interface ConsoleAdapterOptions {
  input: NodeJS.ReadableStream;
  /** A terminal (`isTTY`) gets the live progress block; anything else plain lines. */
  output: ConsoleOutput;
  /** Where charts are saved. */
  chartDir: string;
  /** Where files for the thread (report exports) are written. Default: `chartDir`. */
  fileDir?: string;
  /** The thread lines go to at first. Default `console:local:1`. */
  threadKey?: ThreadKey;
  /**
   * Starts another thread when `new` is typed (chat) and resolves with its key, which the lines
   * after it go to. Without it, `new` is an ordinary message.
   */
  newThread?: () => Promise<ThreadKey>;
  /** Show a prompt before each line (interactive use). Default true. */
  prompt?: boolean;
  /** The clock for progress times. Default `Date.now`. */
  now?: () => number;
}

export class ConsoleAdapter implements ChatAdapter {
  private thread: ThreadKey;
  private handler: ((inbound: Inbound) => Promise<void>) | undefined;
  private lines: Interface | undefined;
  private charts = 0;
  private pending: string[] | undefined;
  private closed: Promise<void> = Promise.resolve();
  /** `exit` was typed, or stop() called: later lines are not read. */
  private inputEnded = false;
  /** stop() was called: lines read but not yet handled are dropped. */
  private stopped = false;
  /** A line is being handled (a turn may be running). */
  private taking = false;
  private readonly progress: ConsoleProgress;

  constructor(private readonly options: ConsoleAdapterOptions) {
    this.thread = options.threadKey ?? 'console:local:1';
    this.progress = new ConsoleProgress({ output: options.output, ...(options.now ? { now: options.now } : {}) });
  }

  /** The thread lines go to now (`new` changes it). */
  get threadKey(): ThreadKey {
    return this.thread;
  }

  onInbound(handler: (inbound: Inbound) => Promise<void>): void {
    this.handler = handler;
  }

  /**
   * Starts reading lines; `finished` resolves when the input ends (or `exit` is typed) and every
   * message read before is handled.
   */
  async start(): Promise<void> {
    const lines = createInterface({ input: this.options.input, terminal: false });
    this.lines = lines;
    let queue = Promise.resolve();
    this.closed = new Promise((resolve) => {
      lines.on('line', (line) => {
        if (this.inputEnded) return;
        const text = this.collect(line);
        if (text === undefined) return;
        if (parseConsoleCommand(text) === 'exit') {
          this.inputEnded = true;
          lines.close();
          return;
        }
        // Queued, `stop` would reach the thread only once the turn it is meant to cancel had ended.
        if (this.taking && isStop(text)) void this.send(text).catch((error: unknown) => this.write(String(error)));
        else queue = queue.then(() => this.take(text));
      });
      lines.on('close', () => {
        void queue.then(resolve);
      });
    });
    this.showPrompt();
  }

  get finished(): Promise<void> {
    return this.closed;
  }

  /** Reading its input: started, and neither `exit` typed nor the input ended. */
  isConnected(): boolean {
    return this.lines !== undefined && !this.inputEnded;
  }

  /** Stops reading; what was read and not yet handled is dropped (a running message goes on). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.inputEnded = true;
    this.progress.settle();
    this.lines?.close();
  }

  async post(threadKey: ThreadKey, post: Post): Promise<MessageRef> {
    if (post.kind === 'progress') {
      this.progress.show(post.progress);
    } else if (post.kind === 'chart') {
      this.write(`[chart] ${post.title}: ${await this.saveChart(post.png)}`);
    } else if (post.kind === 'file') {
      const root = resolve(this.options.fileDir ?? this.options.chartDir);
      const path = resolve(root, post.name);
      if (!path.startsWith(`${root}${sep}`)) throw new Error(`refusing to write ${post.name} outside ${root}`);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, post.content);
      if (!post.name.includes('/')) this.write(`[file] ${path}`);
    } else {
      this.write(renderPost(post));
      // The section's charts were saved when their cells ran: the review names them, not again.
      if (post.kind === 'review' && post.figures.length > 0) this.write(chartsAbove(post.figures));
    }
    return { threadKey, id: String(Date.now()) };
  }

  private async saveChart(png: Buffer): Promise<string> {
    await mkdir(this.options.chartDir, { recursive: true });
    this.charts += 1;
    const path = join(this.options.chartDir, `chart-${this.charts}.png`);
    await writeFile(path, png);
    return path;
  }

  async update(ref: MessageRef, post: Post): Promise<void> {
    await this.post(ref.threadKey, post);
  }

  async setStatus(_threadKey: ThreadKey, text: string): Promise<void> {
    this.write(`… ${text}`);
  }

  /** Joins a fenced block spread over several lines; returns a whole message, or undefined while open. */
  private collect(line: string): string | undefined {
    if (this.pending) {
      this.pending.push(line);
      if (line.trim().startsWith('```')) {
        const text = this.pending.join('\n');
        this.pending = undefined;
        return text;
      }
      return undefined;
    }
    const fences = (line.match(/```/g) ?? []).length;
    if (fences % 2 === 1) {
      this.pending = [line];
      return undefined;
    }
    return line.trim() === '' ? undefined : line;
  }

  /** One line or block read: a console command, or a message for the thread. */
  private async take(text: string): Promise<void> {
    if (this.stopped) return;
    this.taking = true;
    try {
      await this.takeCommandOrMessage(text);
    } finally {
      this.taking = false;
    }
  }

  private async takeCommandOrMessage(text: string): Promise<void> {
    const command = parseConsoleCommand(text);
    const shared = parseShare(text);
    if (shared !== undefined) return this.share(shared);
    if (command === 'help') this.write(CONSOLE_HELP);
    else if (command === 'new' && this.options.newThread) {
      try {
        this.thread = await this.options.newThread();
        this.write(`Started a new thread, ${this.thread}.`);
      } catch (error) {
        this.write(`Could not start a new thread (${error instanceof Error ? error.message : String(error)}).`);
      }
    } else return this.deliver(text);
    this.showPrompt();
  }

  /** A file on this machine into the thread, with no text: the thread says it has it, and the next line asks. */
  private async share(path: string): Promise<void> {
    const file = await localSharedFile(path).catch((error: unknown) => (error as Error).message);
    if (typeof file === 'string') {
      this.write(`Nothing shared: ${file}.`);
      this.showPrompt();
      return;
    }
    await this.deliver('', [file]);
  }

  private async deliver(text: string, files?: SharedFile[]): Promise<void> {
    await this.send(text, files);
    // A turn that ended without saying so (it threw) leaves its block; its timer stops here.
    this.progress.settle();
    this.showPrompt();
  }

  private async send(text: string, files?: SharedFile[]): Promise<void> {
    await this.handler?.({
      threadKey: this.thread,
      user: { id: 'local', name: 'you' },
      text,
      ...(files ? { files } : {}),
      receivedAt: Date.now(),
    });
  }

  private showPrompt(): void {
    if (this.options.prompt !== false && !this.inputEnded) this.options.output.write('\nyou> ');
  }

  /** Prints below the progress block, which stays as it is (a new one starts under the text). */
  private write(text: string): void {
    this.progress.freeze();
    this.options.output.write(`${text}\n`);
  }
}
