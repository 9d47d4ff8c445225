/** What a session's disk quota leaves on the host, for tests that check it was cleaned up. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Mount points below a folder. */
export function mountsUnder(root: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point.startsWith(`${root}/`));
}

/** Loop devices backed by an image below a folder (other suites may hold their own meanwhile). */
export function loopDevicesUnder(root: string): string[] {
  return execFileSync('losetup', ['-a'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`(${root}/`));
}
