/**
 * The composition root: reads the config, builds the real parts, and runs a command.
 * Usage: tally demo | tally help
 */
import { join } from 'node:path';
import Docker from 'dockerode';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import { sandboxImageTag } from '../sandbox/image-tag.js';
import { type Config, loadConfig } from './config.js';
import { runSandboxDemo } from './demo/sandbox-demo.js';
import { AppError } from './errors.js';
import { createLogger, type Logger } from './logger.js';

const USAGE = `usage: tally <command>
  demo   open a session, run a short analysis in its sandbox, save the chart
  help   this text`;

export function createSandbox(config: Config, logger: Logger): Promise<DockerSandbox> {
  return DockerSandbox.start({
    docker: new Docker(config.docker),
    image: config.sandbox.image ?? sandboxImageTag(),
    instance: config.instance,
    workspaceRoot: join(config.home, 'workspaces', config.instance),
    limits: config.sandbox,
    poolSize: config.sandbox.poolSize,
    idleTtlMs: config.sandbox.idleTtlMs,
    cellTimeoutMs: config.sandbox.cellTimeoutMs,
    outputLimitBytes: config.sandbox.outputLimitBytes,
    logger: logger.child({ component: 'sandbox' }),
  });
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? 'help';
  if (command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== 'demo') {
    process.stderr.write(`unknown command '${command}'\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const sandbox = await createSandbox({ ...config, sandbox: { ...config.sandbox, poolSize: 0 } }, logger);
  try {
    await runSandboxDemo({
      sandbox,
      outDir: join(config.home, 'demo'),
      print: (line) => process.stdout.write(`${line}\n`),
    });
  } finally {
    await sandbox.close();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof AppError ? error.message : error instanceof Error ? error.stack : String(error);
    process.stderr.write(`tally: ${message}\n`);
    process.exit(1);
  },
);
