/**
 * The command line, `tally <command>` (`bin` in package.json, or `npx tsx src/main.ts`): a dispatcher to each
 * command's own file. `--help`/`-h` on any command prints its usage and runs nothing; every command ends with
 * the one exit-code table of `exit-codes.ts`.
 */
import { Readable } from 'node:stream';
import { ConsoleAdapter } from '../adapters/console/console-adapter.js';
import { askCommand } from './ask/ask-command.js';
import { auditCommand } from './audit/audit-command.js';
import { COMMAND_USAGE, commandUsage, usage, version, wantsHelp } from './cli-usage.js';
import { consoleCommand } from './console-command.js';
import { AppError } from './errors.js';
import { evalCommand } from './eval/eval-command.js';
import { exitCodeOf } from './exit-codes.js';
import { exportTrainingCommand } from './export-training-command.js';
import { knowledgeCommand } from './knowledge/knowledge-command.js';
import { policyCommand } from './policy/policy-command.js';
import { forgetCommand } from './retention/forget-command.js';
import { schedulesCommand } from './schedules/schedules-command.js';
import { serveCommand } from './serve-command.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...rest] = argv;
  if (command === '--version' || command === '-V' || command === 'version') {
    print(version());
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    const [topic] = rest;
    if (topic === undefined || wantsHelp(rest)) print(usage());
    else if (commandUsage(topic)) print(commandUsage(topic) ?? '');
    else {
      process.stderr.write(`tally help: no command '${topic}' (commands: ${Object.keys(COMMAND_USAGE).join(', ')})\n`);
      return 2;
    }
    return 0;
  }
  const help = commandUsage(command);
  if (help === undefined) {
    process.stderr.write(
      `tally: unknown command '${command}' (commands: ${Object.keys(COMMAND_USAGE).join(', ')}; tally help)\n`,
    );
    return 2;
  }
  if (wantsHelp(rest)) {
    print(help);
    return 0;
  }
  switch (command) {
    case 'export-training':
      return exportTrainingCommand(rest);
    case 'eval':
      return evalCommand(rest, print);
    case 'slack':
    case 'discord':
      return serveCommand(command, rest);
    case 'schedules':
      return schedulesCommand(rest);
    case 'policy':
      return policyCommand(rest, print);
    case 'audit':
      return auditCommand(rest, print);
    case 'forget':
      return forgetCommand(rest, print);
    case 'knowledge':
      return knowledgeCommand(rest, print);
    case 'ask':
      return askCommand(rest, {
        env: process.env,
        stdout: process.stdout,
        stderr: process.stderr,
        openConsole: (options) => new ConsoleAdapter({ ...options, input: Readable.from([]), prompt: false }),
      });
    default:
      return consoleCommand(command as 'demo' | 'chat', rest);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof AppError ? error.message : error instanceof Error ? error.stack : String(error);
    process.stderr.write(`tally: ${message}\n`);
    process.exit(exitCodeOf(error));
  },
);
