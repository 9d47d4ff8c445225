/**
 * tally as a separate process, the way an operator runs it (`node src/cli/main.ts slack`), for tests
 * that kill or stop it. Only the environment given is passed (plus PATH and HOME), so nothing of the
 * test's own leaks in. The child is ended by its PID, never by name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

const ROOT = join(import.meta.dirname, '..', '..');

export interface TallyProcess {
  readonly pid: number;
  /** Everything it wrote to stderr and stdout so far (its logs), for failure messages. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  readonly exited: Promise<number | string>;
  /** What is typed into it, with `{ stdin: true }` (`tally chat`); undefined otherwise. */
  readonly stdin: Writable | undefined;
  kill(signal: 'SIGKILL' | 'SIGTERM' | 'SIGINT' | 'SIGHUP'): void;
}

export function startTallyProcess(
  command: string[],
  env: Record<string, string>,
  options: { stdin?: boolean } = {},
): TallyProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...command], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-64_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-64_000);
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  if (child.pid === undefined) throw new Error('could not start tally as a child process');
  const pid = child.pid;
  return {
    pid,
    output: () => output,
    exited,
    stdin: child.stdin ?? undefined,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, signal);
    },
  };
}

/**
 * What a `tally slack` process needs to run against the Slack stand-in in one allowed channel, with its ops port
 * picked by the system and warnings and errors logged only.
 */
export function slackServiceEnv(
  slack: { botToken: string; appToken: string; apiUrl: string },
  channel: string,
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    SLACK_ALLOWED_CHANNELS: channel,
    TALLY_HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
  };
}
