/**
 * The masking battery's statements, per dialect: every nesting form (`masking-forms.ts`, `masking-subquery-forms.ts`,
 * `masking-nested-forms.ts`) with every way of naming the table (`masking-references.ts`) and with every leaking
 * function (`masking-probes.ts`), the third ingredient and the column turning in fixed rotation, so that each pair
 * of the three meets at least once while the count stays near two thousand; every form once more with each name of
 * its own CTE (`cteNames`); and SELECT * shapes that would show the ungranted tenure (`masking-star-statements.ts`).
 * Deterministic: the same list on every run.
 */
import { FLAT_FORMS, type Form, type Probed } from './masking-forms.js';
import { NESTED_FORMS } from './masking-nested-forms.js';
import { type Dialect, MASKED_COLUMNS, type MaskedColumn, PROBES, type Probe } from './masking-probes.js';
import { type Reference, referencesFor } from './masking-references.js';
import { type MaskingStatement, rotation, sourceOf } from './masking-sources.js';
import { starStatements } from './masking-star-statements.js';
import { SUBQUERY_FORMS } from './masking-subquery-forms.js';

export type { MaskingStatement, Table } from './masking-sources.js';

function probed(probe: Probe, target: MaskedColumn): Probed {
  return {
    row: (column) => probe.apply(column, target),
    single: (column) =>
      probe.kind === 'aggregate' ? probe.apply(column, target) : `MAX(${probe.apply(column, target)})`,
  };
}

/**
 * Names for a statement's own CTE: `x`, and words that follow WITH in other constructs (WITH ROLLUP, WITH TIES,
 * WITH ORDINALITY, WITH TIME ZONE, WITH LOCAL or CASCADED CHECK OPTION, WITH [NO] DATA), which a reader of tokens
 * may take for something other than a CTE; `check`, a reserved word, quoted; on MariaDB, where a name may start
 * with a digit, `1check` and `1rollup`, whose words without the digit are those keywords.
 */
export function cteNames(dialect: Dialect): string[] {
  const names = ['x', 'data', 'time', 'local', 'no', 'ties', 'ordinality', 'cascaded', 'rollup'];
  return dialect === 'mysql' ? [...names, '`check`', '1check', '1rollup'] : [...names, '"check"'];
}

export function maskingStatements(dialect: Dialect): MaskingStatement[] {
  const forms = [...FLAT_FORMS, ...SUBQUERY_FORMS, ...NESTED_FORMS].filter((form) => form.dialects.includes(dialect));
  const references = referencesFor(dialect);
  const probes = PROBES[dialect];
  const valued = probes.filter((probe) => probe.kind !== 'oracle');
  const oracles = probes.filter((probe) => probe.kind === 'oracle');
  const names = cteNames(dialect);
  const [nextReference, nextColumn, nextValued, nextOracle, nextCte] = [
    rotation(references),
    rotation(MASKED_COLUMNS),
    rotation(valued),
    rotation(oracles),
    rotation(names),
  ];
  const statements = new Map<string, MaskingStatement>();
  const add = (form: Form, reference: Reference, probe: Probe, target: MaskedColumn, cte = nextCte()) => {
    const source = sourceOf(reference, target.table, dialect, cte);
    const oracle = probe.kind === 'oracle';
    const sql = oracle
      ? form.count?.(source, (column) => probe.apply(column, target), target.name, dialect)
      : form.values(source, probed(probe, target), target.name, dialect);
    if (sql === undefined || statements.has(sql)) return;
    statements.set(sql, {
      name: `${form.name}: ${reference.name} ${probe.name}(${target.table}.${target.name})${cte === 'x' ? '' : ` as ${cte}`}`,
      sql,
      form: form.name,
      nested: form.nested || reference.ctes !== undefined,
      oracle,
      tables: form.readsCustomers && target.table !== 'customers' ? [target.table, 'customers'] : [target.table],
    });
  };
  for (const form of forms) {
    const fits = (probe: Probe) => !form.rowWise || probe.kind === 'value';
    for (const reference of references) add(form, reference, nextValued(fits), nextColumn());
    for (const probe of valued.filter(fits)) add(form, nextReference(), probe, nextColumn());
    if (!form.count) continue;
    for (const reference of references) add(form, reference, nextOracle(), nextColumn());
    for (const probe of oracles) add(form, nextReference(), probe, nextColumn());
  }
  const [plain, raw, likeSuffix] = [references[0], valued[0], oracles[0]] as [Reference, Probe, Probe];
  for (const form of forms) {
    for (const cte of names) {
      add(form, plain, raw, nextColumn(), cte);
      if (form.count) add(form, plain, likeSuffix, nextColumn(), cte);
    }
  }
  for (const statement of starStatements(dialect, references, names)) statements.set(statement.sql, statement);
  return [...statements.values()];
}
