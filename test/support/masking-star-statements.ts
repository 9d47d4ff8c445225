/**
 * SELECT * in the shapes of issue 33, for the masking battery (`masking-statements.ts`): through the base table,
 * the ungranted tenure would come along, as a column, as a JSON key, or behind a marker where a column list renames
 * it; and the masked columns raw beside it.
 */
import { inner, leading, type Source } from './masking-forms.js';
import type { Dialect } from './masking-probes.js';
import type { Reference } from './masking-references.js';
import { type MaskingStatement, rotation, sourceOf, type Table } from './masking-sources.js';

/** What the statements put before a tenure value, so that a bare number is never taken for one. */
export const TENURE_MARKER = 'tenure#';

interface Shape {
  name: string;
  nested: boolean;
  customersOnly?: boolean;
  sql(source: Source): string;
}

export function starStatements(
  dialect: Dialect,
  references: readonly Reference[],
  names: readonly string[],
): MaskingStatement[] {
  const marked = (column: string) =>
    dialect === 'mysql' ? `CONCAT('${TENURE_MARKER}', ${column})` : `'${TENURE_MARKER}' || ${column}`;
  const shapes: Shape[] = [
    { name: 'star', nested: false, sql: (s) => leading(s.ctes, [], `SELECT * FROM ${s.as('c').from}`) },
    {
      name: 'star-derived-table',
      nested: false,
      sql: (s) => leading(s.ctes, [], `SELECT d.* FROM (SELECT * FROM ${s.as('c').from}) d`),
    },
    {
      name: 'star-nested-with',
      nested: true,
      sql: (s) =>
        `SELECT * FROM (${inner(s.ctes, [`${s.cte} AS (SELECT * FROM ${s.as('c').from})`], `SELECT * FROM ${s.cte}`)}) d`,
    },
    {
      name: 'star-nested-with-in-cte',
      nested: true,
      sql: (s) =>
        `WITH y AS (${inner(s.ctes, [`${s.cte} AS (SELECT * FROM ${s.as('c').from})`], `SELECT * FROM ${s.cte}`)}) SELECT * FROM y`,
    },
    {
      // Six names for the five columns the view has: only the base table fills the sixth, with tenure.
      name: 'star-renamed-columns',
      nested: false,
      customersOnly: true,
      sql: (s) =>
        leading(
          s.ctes,
          [`${s.cte} (a, b, c, e, g, f) AS (SELECT * FROM ${s.as('c').from})`],
          `SELECT ${marked(`${s.cte}.f`)} AS v FROM ${s.cte}`,
        ),
    },
    {
      name: 'star-renamed-columns-nested-with',
      nested: true,
      customersOnly: true,
      sql: (s) =>
        `SELECT ${marked('d.f')} AS v FROM (${inner(s.ctes, [`${s.cte} (a, b, c, e, g, f) AS (SELECT * FROM ${s.as('c').from})`], `SELECT * FROM ${s.cte}`)}) d`,
    },
  ];
  if (dialect === 'postgres') {
    shapes.push(
      {
        name: 'row-to-json',
        nested: false,
        sql: (s) => leading(s.ctes, [], `SELECT row_to_json(d)::text AS v FROM (SELECT * FROM ${s.as('c').from}) d`),
      },
      {
        name: 'row-to-json-nested-with',
        nested: true,
        sql: (s) =>
          `SELECT row_to_json(d)::text AS v FROM (${inner(s.ctes, [`${s.cte} AS (SELECT * FROM ${s.as('c').from})`], `SELECT * FROM ${s.cte}`)}) d`,
      },
    );
  }
  const tables: Table[] = ['customers', 'tickets'];
  const nextCte = rotation(names);
  const statement = (shape: Shape, reference: Reference, table: Table, cte: string): MaskingStatement => ({
    name: `${shape.name}: ${reference.name} (${table})${cte === 'x' ? '' : ` as ${cte}`}`,
    sql: shape.sql(sourceOf(reference, table, dialect, cte)),
    form: shape.nested ? 'nested-star' : 'star',
    nested: shape.nested || reference.ctes !== undefined,
    oracle: false,
    tables: [table],
  });
  const everyReference = shapes.flatMap((shape) =>
    references.flatMap((reference) =>
      tables
        .filter((table) => !shape.customersOnly || table === 'customers')
        .map((table) => statement(shape, reference, table, nextCte())),
    ),
  );
  const [plain] = references as [Reference];
  const everyName = shapes
    .filter((shape) => shape.nested)
    .flatMap((shape) => names.map((cte) => statement(shape, plain, 'customers', cte)));
  return [...everyReference, ...everyName];
}
