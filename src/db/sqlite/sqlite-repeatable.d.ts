/** Types of sqlite-repeatable.js (plain JavaScript, run in the SQLite worker). */
import type { Database } from 'better-sqlite3';

export function repeatable(db: Database, sql: string): boolean;
