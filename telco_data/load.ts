/**
 * Command line of the telco loader:
 *   tsx telco_data/load.ts --url <url> [--csv path] [--seed 42] [--rows 7043]
 *                          [--readonly-user tally_ro --readonly-password ...]
 * (`--target` is the older name of `--url`.)
 * Prints the report. On a bad flag or an unreachable server it prints one line naming the flag to
 * fix and exits non-zero: 2 for bad arguments, 1 for everything else.
 */
import { formatTelcoReport } from './format-report.js';
import { loadTelco } from './load-telco.js';
import { LOAD_USAGE, parseLoadArguments } from './parse-load-arguments.js';
import { TelcoError } from './telco-error.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    const options = parseLoadArguments(argv);
    if (options === 'help') {
      process.stdout.write(`${LOAD_USAGE}\n`);
      return 0;
    }
    const report = await loadTelco(options);
    process.stdout.write(`${formatTelcoReport(report)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof TelcoError && error.code === 'TELCO_ARGUMENT_INVALID') {
      process.stderr.write(`telco load: ${error.message} (--help shows the usage)\n`);
      return 2;
    }
    if (error instanceof TelcoError) {
      process.stderr.write(`telco load: ${error.message}\n`);
      return 1;
    }
    // Unexpected: still one line; a stack trace helps nobody running a loader.
    process.stderr.write(`telco load: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
