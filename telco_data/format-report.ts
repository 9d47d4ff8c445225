/**
 * The loader's report as text for a person: what was loaded where, row counts, and every problem
 * injected into the train tables with the affected customerIDs (so an analysis can be checked).
 */
import type { TelcoLoadReport } from './load-telco.js';
import { TELCO_TABLES } from './telco-tables.js';

const WIDTH = 120;
const INDENT = '    ';

/** Wraps a list of ids into indented lines of at most {@link WIDTH} characters. */
function wrap(items: readonly string[]): string[] {
  const lines: string[] = [];
  let line = INDENT;
  for (const item of items) {
    if (line.length > INDENT.length && line.length + item.length + 1 > WIDTH) {
      lines.push(line.trimEnd());
      line = INDENT;
    }
    line += `${item} `;
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  return lines;
}

const KIND_NAMES: Record<TelcoLoadReport['kind'], string> = {
  sqlite: 'SQLite',
  mysql: 'MySQL/MariaDB',
  postgres: 'PostgreSQL',
};

/** Formats {@link TelcoLoadReport} as the lines the CLI prints. */
export function formatTelcoReport(report: TelcoLoadReport): string {
  const { problems } = report;
  const source =
    report.source.kind === 'generator'
      ? `generated ${report.source.rows} customers (seed ${report.source.seed})`
      : `${report.source.rows} customers from ${report.source.path}`;
  const lines = [
    `telco_db loaded into ${KIND_NAMES[report.kind]} ${report.target} in ${report.durationMs} ms`,
    `source: ${source}; split (seed ${report.seed}): ${report.trainCustomers} train, ${report.testCustomers} test`,
    '',
    'rows per table:',
    ...TELCO_TABLES.map(
      (spec) =>
        `  ${spec.name.padEnd(24)} ${String(report.tableRows[spec.name] ?? 0).padStart(6)}  (${spec.part === 'train' ? 'train, damaged' : 'test, clean'})`,
    ),
    '',
    'problems injected into the train tables:',
    `  user_demographics: ${problems.droppedDemographics.length} customers' rows deleted:`,
    ...wrap(problems.droppedDemographics),
    `  user_services: ${problems.fakeServiceCustomers.length} fake customers added (all nine service columns '', tenure NULL):`,
    ...wrap(problems.fakeServiceCustomers),
    `  user_payments: ${problems.blankedPaymentCells.length} cells set to '' (customerID:column):`,
    ...wrap(problems.blankedPaymentCells.map((cell) => `${cell.customerID}:${cell.column}`)),
    `  user_churn: ${problems.fakeChurnCustomers.length} rows for customers in no other table:`,
    ...wrap(problems.fakeChurnCustomers),
  ];
  const readonly = report.readonlyUser;
  if (readonly && 'hosts' in readonly) {
    const { name, hosts, database } = readonly;
    lines.push(
      '',
      `read-only user: ${hosts.map((host) => `'${name}'@'${host}'`).join(' and ')} with SELECT on ${database}.* only`,
    );
  } else if (readonly) {
    const { name, database, schema } = readonly;
    lines.push(
      '',
      `read-only role: '${name}' with CONNECT on ${database}, USAGE on schema ${schema} and SELECT on its tables only`,
    );
  }
  return lines.join('\n');
}
