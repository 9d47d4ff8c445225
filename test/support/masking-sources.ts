/**
 * What the masking battery's statement lists are made of (`masking-statements.ts`, `masking-star-statements.ts`,
 * `masking-regressions.ts`): the statement record, a table named by one reference, and a fixed rotation.
 */
import type { Source } from './masking-forms.js';
import type { Dialect } from './masking-probes.js';
import type { Reference } from './masking-references.js';

export type Table = 'customers' | 'tickets';

export interface MaskingStatement {
  /** `form: reference probe(table.column)`. */
  name: string;
  /** With SCHEMA (`masking-references.ts`) for the database's own schema. */
  sql: string;
  form: string;
  /** Holds a WITH that is not the statement's leading one, or a CTE named like a masked table. */
  nested: boolean;
  /** Counts the rows meeting a condition only raw values meet: must count 0. */
  oracle: boolean;
  tables: readonly Table[];
}

export function sourceOf(reference: Reference, table: Table, dialect: Dialect, cte = 'x'): Source {
  return {
    table,
    cte,
    ctes: reference.ctes?.(table, dialect) ?? [],
    as: (alias) => ({
      from: reference.from(table, alias, dialect),
      column: (name) => reference.column(table, alias, name, dialect),
    }),
  };
}

/** Hands out the items of `list` in turn, skipping those `fits` rejects. */
export function rotation<T>(list: readonly T[]) {
  let turn = 0;
  return (fits: (item: T) => boolean = () => true): T => {
    for (let tries = 0; tries < list.length; tries += 1) {
      const item = list[turn++ % list.length] as T;
      if (fits(item)) return item;
    }
    throw new Error('no item fits');
  };
}
