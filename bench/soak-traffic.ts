/**
 * The soak benchmark's traffic: threads of one or two questions sent to a tally, and the scripted
 * model that answers them. Every turn (a clear request: no triage) is one `run_sql` (a small GROUP BY on telco), one
 * `run_python` cell (the total of a range the question names), then an answer quoting both. The
 * model's step is a function of the conversation alone, so any number of threads on any number of
 * tallies can share one scripted server in any interleaving. A turn counts as answered only when its
 * answer names its own token, the query's rows and the cell's correct total.
 */
import type { ScriptContext, ScriptStep } from '../src/demo/scripted-model-server.js';
import { callTool, say } from '../src/demo/scripted-model-server.js';
import type { Inbound, Post, ThreadKey } from '../src/ports/chat.js';

export const SOAK_SQL = 'SELECT Contract, COUNT(*) AS n FROM user_payments GROUP BY Contract ORDER BY Contract';

const QUESTION = /soak (\S+): .*range\((\d+)\)/;
const ANSWER = /^answer to (\S+): sql (ok|failed), total (\S+)/;

const totalOf = (size: number) => (size * (size - 1)) / 2;

/** The question of one turn; `token` names the turn, `size` the range whose total the cell prints. */
export function question(token: string, size: number): string {
  return `soak ${token}: how many customers per contract, and the total of range(${size})?`;
}

/** One step of the scripted model, for whatever request comes: sql, python, answer. */
export function soakStep(context: ScriptContext): ScriptStep {
  const lastUser = context.messages.findLastIndex((message) => message.role === 'user');
  const asked = QUESTION.exec(String(context.messages[lastUser]?.content ?? ''));
  if (!asked) return say('(the soak model found no soak question)');
  const [, token, size] = asked;
  const results = context.messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
  if (results.length === 0) return callTool('run_sql', { sql: SOAK_SQL });
  if (results.length === 1) {
    return callTool('run_python', {
      code: `import pandas as pd\nvalues = pd.Series(range(${size}))\nprint('total', int(values.sum()))`,
    });
  }
  const sql = String(results[0]?.content ?? '').includes('Month-to-month') ? 'ok' : 'failed';
  const total = /total (\d+)/.exec(String(results[1]?.content ?? ''))?.[1] ?? 'missing';
  return say(`answer to ${token}: sql ${sql}, total ${total}`);
}

/** Enough steps for `requests` model requests: the same step each time. */
export function soakScript(requests: number): ScriptStep[] {
  return Array.from({ length: requests }, () => soakStep);
}

export interface TrafficCounts {
  threads: number;
  /** Messages sent. */
  sent: number;
  /** Messages whose answer came, correct, within the turn timeout. */
  answered: number;
  lost: number;
  /** Answers that came with the wrong token's numbers, or a failed query or cell. */
  wrong: number;
  /** Error posts. */
  errors: number;
  /** From sending a message to its answer, in ms, for every answered message. */
  turnMs: number[];
}

export interface SoakTrafficOptions {
  /** Names the threads (`slack:TSOAK:C<name>:<index, 6 digits>`) and the tokens. */
  name: string;
  /** A thread whose index is a multiple of this gets a follow-up once its first answer is in. */
  followUpEvery: number;
  /** A message not answered within this is lost. */
  turnTimeoutMs: number;
  /** The people who write; a few, as in one team. */
  users: readonly string[];
}

interface Waiter {
  expectedTotal: number;
  resolve: (answered: boolean) => void;
}

export class SoakTraffic {
  readonly counts: TrafficCounts = { threads: 0, sent: 0, answered: 0, lost: 0, wrong: 0, errors: 0, turnMs: [] };
  private readonly waiters = new Map<string, Waiter>();

  constructor(private readonly options: SoakTrafficOptions) {}

  /** What the tally posts: give it to createTally as `post`. */
  readonly post = async (_threadKey: ThreadKey, post: Post): Promise<void> => {
    if (post.kind === 'error') this.counts.errors += 1;
    if (post.kind !== 'text') return;
    const answer = ANSWER.exec(post.markdown);
    const waiter = answer?.[1] === undefined ? undefined : this.waiters.get(answer[1]);
    if (!answer || !waiter) return;
    this.waiters.delete(answer[1] ?? '');
    const correct = answer[2] === 'ok' && answer[3] === String(waiter.expectedTotal);
    if (!correct) this.counts.wrong += 1;
    waiter.resolve(correct);
  };

  /** Runs thread `index` to its end: its question, and a follow-up after the answer in some threads. */
  async thread(handle: (inbound: Inbound) => Promise<void>, index: number): Promise<void> {
    const { name, followUpEvery, users } = this.options;
    // Fixed-width numbers: keys and texts that lengthen as the count grows would read as a store growing.
    const number = String(index).padStart(6, '0');
    const threadKey = `slack:TSOAK:C${name}:${number}`;
    const user = users[index % users.length] ?? 'U1';
    const turns = index % followUpEvery === 0 ? 2 : 1;
    this.counts.threads += 1;
    for (let turn = 1; turn <= turns; turn += 1) {
      const token = `${name}-${number}-${turn}`;
      const size = 1000 + (index % 10) * 10 + turn;
      const answered = this.answerOf(token, totalOf(size));
      const started = performance.now();
      this.counts.sent += 1;
      // A message kept for later (no kernel could start) resolves handle early; the answer still counts.
      await handle({
        threadKey,
        user: { id: user },
        text: question(token, size),
        receivedAt: Date.now(),
        messageId: token,
      });
      if (!(await answered)) {
        this.counts.lost += 1;
        return;
      }
      this.counts.answered += 1;
      this.counts.turnMs.push(performance.now() - started);
    }
  }

  private answerOf(token: string, expectedTotal: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(token);
        resolve(false);
      }, this.options.turnTimeoutMs);
      this.waiters.set(token, {
        expectedTotal,
        resolve: (answered) => {
          clearTimeout(timer);
          resolve(answered);
        },
      });
    });
  }
}
