/**
 * The composition root: reads the config, builds the real parts, and runs a command.
 * Usage: tally demo | tally help
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import { sandboxImageTag } from '../sandbox/image-tag.js';
import { loadTelco } from '../telco_data/index.js';
import { type Config, type DatabaseSettings, loadConfig } from './config.js';
import { openDatabase, sqlitePath } from './db/open-database.js';
import { runTelcoDemo } from './demo/telco-demo.js';
import { AppError } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import type { Database } from './ports/database.js';

const USAGE = `usage: tally <command>
  demo   analyse the telco database in a sandboxed session and save a chart
         (builds the embedded demo database first when no DATABASE_URL is set)
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

/** Opens a configured database, building the embedded demo database first if it is not there. */
async function openDemoDatabase(config: Config, logger: Logger, print: (line: string) => void): Promise<Database> {
  const settings = config.databases[0] as DatabaseSettings;
  if (settings.embedded && !existsSync(sqlitePath(settings.url))) {
    print(`building the demo database ${settings.url} (no DATABASE_URL is set)`);
    const report = await loadTelco({ target: settings.url });
    print(`  ${report.trainCustomers} train and ${report.testCustomers} test customers in ${report.durationMs} ms\n`);
  }
  return openDatabase(settings, config.databaseLimits, logger);
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
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const database = await openDemoDatabase(config, logger, print);
  const sandbox = await createSandbox({ ...config, sandbox: { ...config.sandbox, poolSize: 0 } }, logger);
  try {
    await runTelcoDemo({ sandbox, database, outDir: join(config.home, 'demo'), print });
  } finally {
    await sandbox.close();
    await database.close();
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
