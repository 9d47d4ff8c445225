/**
 * The tally service image (deploy/Dockerfile) for the deployment tests: built by the test set-up
 * (`npm run test:all` runs deploy/build-image.ts); a missing one fails with what to do.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { docker } from './docker.js';

export const TALLY_IMAGE = 'tally:latest';
const DOCKER_SOCKET = '/var/run/docker.sock';

export async function requireTallyImage(): Promise<string> {
  try {
    await docker.getImage(TALLY_IMAGE).inspect();
  } catch {
    throw new Error(`Image ${TALLY_IMAGE} is not built. Run 'npm run test:all' (or 'npm run image') to build it.`);
  }
  return TALLY_IMAGE;
}

/** The group that owns the engine's socket: a non-root tally joins it with `--group-add`. */
export async function dockerSocketGroup(): Promise<number> {
  return (await stat(DOCKER_SOCKET)).gid;
}

export interface DockerRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `command <args>` to its end, in `cwd`; never throws on a non-zero exit. */
export function runCommand(command: string, args: string[], cwd?: string, timeoutMs = 240_000): Promise<DockerRun> {
  return promisify(execFile)(command, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

/** `docker <args>` to its end; never throws on a non-zero exit. */
export const dockerCli = (args: string[], timeoutMs?: number) => runCommand('docker', args, undefined, timeoutMs);

/** Arguments that run the image as the README does: the engine's socket, TALLY_HOME at the same path. */
export async function tallyRunArguments(home: string, env: Record<string, string>): Promise<string[]> {
  return [
    'run',
    '--rm',
    '--group-add',
    String(await dockerSocketGroup()),
    '-v',
    `${DOCKER_SOCKET}:${DOCKER_SOCKET}`,
    '-v',
    `${home}:${home}`,
    '-e',
    `TALLY_HOME=${home}`,
    ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
  ];
}
