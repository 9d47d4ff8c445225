/**
 * The command line, `tally <command>` (`bin` in package.json, or `npx tsx src/cli/main.ts`): a dispatcher to each
 * command's own file. `--help`/`-h` on any command prints its usage and runs nothing; every command ends with
 * the one exit-code table of `exit-codes.ts`.
 */

import { AppError } from '../base/errors.js';
import { COMMAND_USAGE, commandUsage, usage, version, wantsHelp } from './cli-usage.js';
import { exitCodeOf } from './exit-codes.js';

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
  // Each command's modules load only when it runs: the chat SDKs, the database drivers and the SQL
  // parser take seconds to load, which `--version`, `--help` or `ask` should not wait for.
  switch (command) {
    case 'export-training':
      return (await import('./export-training-command.js')).exportTrainingCommand(rest);
    case 'eval':
      return (await import('./eval-command.js')).evalCommand(rest, print);
    case 'slack':
    case 'discord':
      return (await import('./serve-command.js')).serveCommand(command, rest);
    case 'schedules':
      return (await import('./schedules-command.js')).schedulesCommand(rest);
    case 'policy':
      return (await import('./policy-command.js')).policyCommand(rest, print);
    case 'audit':
      return (await import('./audit-command.js')).auditCommand(rest, print);
    case 'forget':
      return (await import('./forget-command.js')).forgetCommand(rest, print);
    case 'knowledge':
      return (await import('./knowledge-command.js')).knowledgeCommand(rest, print);
    case 'ask': {
      const [{ askCommand }, { ConsoleAdapter }, { Readable }] = await Promise.all([
        import('./ask-command.js'),
        import('../../adapters/console/console-adapter.js'),
        import('node:stream'),
      ]);
      return askCommand(rest, {
        env: process.env,
        stdout: process.stdout,
        stderr: process.stderr,
        openConsole: (options) => new ConsoleAdapter({ ...options, input: Readable.from([]), prompt: false }),
      });
    }
    default:
      return (await import('./console-command.js')).consoleCommand(command as 'demo' | 'chat', rest);
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
