/**
 * Table descriptions as one person may see them under the access policy: only granted tables, denied columns left
 * out, masked ones marked (their type as the mask leaves it, no samples), and no foreign key that leads to a table
 * or column they may not read. `describeTable` and `catalogue` of the policed database both go through here; the
 * catalogue is filtered once per catalogue the connector keeps (`policedCatalogue`).
 */
import type { Catalogue, ColumnInfo, Database, TableDescription } from '../ports/database.js';
import type { DatabaseAccess } from './access.js';

const MASK_NOTES = {
  hash: 'pseudonymised by the access policy: a stable keyed hash, so joins and group-bys work',
  redact: 'redacted by the access policy: always NULL',
} as const;

/** A granted table's description for this person (the caller has checked the table's grant). */
export function grantedDescription(description: TableDescription, access: DatabaseAccess): TableDescription {
  const table = description.name;
  const columns = description.columns.flatMap((column): ColumnInfo[] => {
    const { access: how } = access.column(table, column.name);
    if (how === 'denied') return [];
    const reference = column.references && grantedReference(column.references, access);
    const { references: _references, ...plain } = column;
    const kept = reference ? { ...plain, references: reference } : plain;
    if (how === 'raw') return [column.references && !reference ? kept : column];
    const { samples: _samples, ...rest } = kept;
    return [
      { ...rest, type: how === 'hash' ? 'char(16)' : column.type, kind: 'text' as const, comment: MASK_NOTES[how] },
    ];
  });
  // Unchanged descriptions stay the same objects, so what is cached per description (search tokens) holds.
  const unchanged =
    columns.length === description.columns.length && columns.every((c, i) => c === description.columns[i]);
  return unchanged ? description : { ...description, columns };
}

/** The catalogue with only what this person may read (tables left with no granted column are left out). */
export function grantedCatalogue(catalogue: Catalogue, access: DatabaseAccess): Catalogue {
  return {
    version: catalogue.version,
    tables: catalogue.tables
      .filter((table) => access.tableGrant(table.name))
      .map((table) => grantedDescription(table, access))
      .filter((table) => table.columns.length > 0),
  };
}

function grantedReference(
  reference: NonNullable<ColumnInfo['references']>,
  access: DatabaseAccess,
): ColumnInfo['references'] {
  if (!access.tableGrant(reference.table)) return undefined;
  return access.column(reference.table, reference.column).access === 'denied' ? undefined : reference;
}

/** The real database's catalogue as this person may see it, filtered once per catalogue the connector keeps. */
export function policedCatalogue(
  read: NonNullable<Database['catalogue']>,
  access: DatabaseAccess,
): NonNullable<Database['catalogue']> {
  const filtered = new WeakMap<Catalogue, Catalogue>();
  return async (catalogueOptions) => {
    const catalogue = await read(catalogueOptions);
    let granted = filtered.get(catalogue);
    if (!granted) {
      granted = grantedCatalogue(catalogue, access);
      filtered.set(catalogue, granted);
    }
    return granted;
  };
}
