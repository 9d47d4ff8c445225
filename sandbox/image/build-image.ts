/**
 * Builds the sandbox image when its inputs changed (the tag is their content hash), on a pulled
 * base where a registry answers and on a debootstrapped one where none does.
 * Usage: tsx sandbox/image/build-image.ts [--print-tag]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_REPOSITORY, SANDBOX_DIR, sandboxImageTag } from '../image-tag.js';

const say = (message: string) => process.stderr.write(`tally image: ${message}\n`);

function docker(args: string[], options: { quiet?: boolean } = {}) {
  return spawnSync('docker', args, { encoding: 'utf8', stdio: options.quiet ? 'pipe' : ['ignore', 'pipe', 'pipe'] });
}

function main(): number {
  const tag = sandboxImageTag();
  if (process.argv.includes('--print-tag')) {
    process.stdout.write(`${tag}\n`);
    return 0;
  }
  if (docker(['image', 'inspect', tag], { quiet: true }).status === 0) {
    say(`${tag} is up to date`);
    return 0;
  }
  const base = spawnSync('bash', [join(SANDBOX_DIR, 'image', 'build-base.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseImage = base.stdout.trim().split('\n').pop();
  if (base.status !== 0 || !baseImage) {
    say('no base image; see the messages above');
    return 1;
  }
  const logDir = join(SANDBOX_DIR, '..', '.tally');
  mkdirSync(logDir, { recursive: true });
  const logPath = join(logDir, 'sandbox-image-build.log');
  say(`building ${tag} on ${baseImage} (a few minutes the first time; log: ${logPath})`);
  const build = spawnSync(
    'docker',
    [
      'build',
      '--build-arg',
      `BASE=${baseImage}`,
      '-t',
      tag,
      '-f',
      join(SANDBOX_DIR, 'image', 'Dockerfile'),
      SANDBOX_DIR,
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, DOCKER_BUILDKIT: '0' } },
  );
  const log = createWriteStream(logPath);
  log.end(`${build.stdout ?? ''}${build.stderr ?? ''}`);
  if (build.status !== 0) {
    say(
      `docker build failed; the last lines:\n${`${build.stdout}${build.stderr}`.trim().split('\n').slice(-15).join('\n')}`,
    );
    return 1;
  }
  // Keep the three newest builds: a running tally may still start kernels from the previous tag.
  // Builds share their large layers, so the old tags cost little; older ones go.
  const listed = docker(['image', 'ls', IMAGE_REPOSITORY, '--format', '{{.Repository}}:{{.Tag}}'], { quiet: true });
  for (const ref of listed.stdout.split('\n').filter(Boolean).slice(3)) docker(['image', 'rm', ref], { quiet: true });
  say(`built ${tag}`);
  return 0;
}

process.exit(main());
