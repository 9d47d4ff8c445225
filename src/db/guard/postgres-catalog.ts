/**
 * The system relations a PostgreSQL statement may read besides the configured schemas, and the sentence a refusal
 * uses to say so (`schema-scope.ts`). Both lists say what is allowed, not what is not: each release adds catalogs
 * and views, and what is not listed stays refused.
 *
 * They cover what the tools and an analyst need to find their way: tables, columns, types, keys and constraints,
 * indexes, views, defaults, comments, partitions and enum labels. They leave out accounts and password hashes
 * (pg_authid, pg_shadow, pg_roles, pg_user, pg_user_mappings), other sessions and server activity (pg_stat_*,
 * pg_statio_*, pg_locks, pg_prepared_xacts), settings and their files (pg_settings, pg_file_settings,
 * pg_hba_file_rules), other databases (pg_database), large objects (pg_largeobject), and column statistics
 * (pg_statistic, pg_stats, pg_stats_ext), whose sample and most common values would show columns that the access
 * policy hides.
 *
 * pg_catalog, unlike information_schema, does not filter by privilege: its rows name (never show the rows of) the
 * tables of every schema in the database.
 */
/** information_schema views about tables, columns, keys, constraints and views (only those the account may use). */
export const POSTGRES_METADATA_VIEWS: ReadonlySet<string> = new Set([
  'tables',
  'columns',
  'views',
  'key_column_usage',
  'table_constraints',
  'referential_constraints',
  'constraint_column_usage',
  'constraint_table_usage',
  'check_constraints',
]);

/** pg_catalog tables and views about tables, columns, types, indexes and constraints. */
export const POSTGRES_CATALOG_TABLES: ReadonlySet<string> = new Set([
  'pg_class',
  'pg_namespace',
  'pg_attribute',
  'pg_attrdef',
  'pg_type',
  'pg_enum',
  'pg_index',
  'pg_am',
  'pg_constraint',
  'pg_description',
  'pg_inherits',
  'pg_partitioned_table',
  'pg_collation',
  'pg_extension',
  'pg_tables',
  'pg_views',
  'pg_matviews',
  'pg_indexes',
]);

/** `schemas`: the scope's, the connection's own first. */
export function postgresAllowedSentence(schemas: readonly string[]): string {
  const metadata =
    `plus information_schema's metadata views (${[...POSTGRES_METADATA_VIEWS].join(', ')}) and these ` +
    `pg_catalog tables and views: ${[...POSTGRES_CATALOG_TABLES].join(', ')}`;
  const [own, ...more] = schemas;
  if (!own) return `Only the tables of the current schema can be read (unqualified names), ${metadata}.`;
  const names = [own, ...more].join(', ');
  const which = more.length > 0 ? `the ${names} schemas` : `the ${own} schema`;
  return `Only the tables of ${which} can be read (unqualified names are in ${own}), ${metadata}.`;
}
