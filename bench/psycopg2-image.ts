/**
 * The image for the PostgreSQL read_sql anchor: the sandbox image itself once it ships psycopg2 (Debian's
 * `python3-psycopg2`, next to `python3-pymysql` in sandbox/image/Dockerfile). Until then, a bench-only
 * image on top of it that adds that one package, built once per sandbox image and kept, so the anchor
 * runs the same Python and pandas as the kernel.
 */
import { spawnSync } from 'node:child_process';
import type { BenchSettings } from './bench-settings.js';

const REPOSITORY = 'tally-bench-psycopg2';

function docker(args: string[], input?: string) {
  // The legacy builder, as sandbox/image/build-image.ts uses: BuildKit is not on every engine here.
  return spawnSync('docker', args, {
    encoding: 'utf8',
    input,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, DOCKER_BUILDKIT: '0' },
  });
}

/** Whether `import psycopg2` works in `image` (python3 is its only command here; no network needed). */
function hasPsycopg2(image: string): boolean {
  return docker(['run', '--rm', '--network', 'none', image, 'python3', '-c', 'import psycopg2']).status === 0;
}

/** The image to run `pandas.read_sql` over psycopg2 in; builds the bench-only one when it must. */
export function psycopg2Image(settings: BenchSettings, say: (message: string) => void): string {
  if (hasPsycopg2(settings.image)) return settings.image;
  const derived = `${REPOSITORY}:${settings.image.split(':').pop()}`;
  if (docker(['image', 'inspect', derived]).status === 0) return derived;
  say(`${settings.image} has no psycopg2: building ${derived} with python3-psycopg2 for the read_sql anchor`);
  // The sandbox image ends as its unprivileged user: root for the install only, then that user again.
  const dockerfile = [
    `FROM ${settings.image}`,
    'USER 0:0',
    'RUN apt-get update && apt-get install -y --no-install-recommends python3-psycopg2 \\',
    ' && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*',
    'USER 10001:10001',
  ].join('\n');
  const build = docker(['build', '-q', '-t', derived, '-'], dockerfile);
  if (build.status !== 0 || !hasPsycopg2(derived)) {
    throw new Error(
      `could not build ${derived} (${build.status}): ${`${build.stdout}${build.stderr}`.trim().split('\n').slice(-10).join('\n')}. ` +
        `Add python3-psycopg2 to sandbox/image/Dockerfile, or make deb.debian.org reachable for docker build.`,
    );
  }
  return derived;
}
