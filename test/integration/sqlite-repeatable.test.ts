import BetterSqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { repeatable } from '../../src/db/sqlite/sqlite-repeatable.js';

const db = new BetterSqlite(':memory:');
db.exec(`CREATE TABLE t (id INTEGER, day TEXT, payload TEXT);
  CREATE VIEW shuffled AS SELECT id FROM t ORDER BY random();
  CREATE VIEW plain AS SELECT id, upper(payload) AS loud FROM t`);
db.function('tally_pseudonym', { deterministic: true }, (key, value) => `${key}${value}`);
afterAll(() => db.close());

describe('repeatable', () => {
  it('holds for statements that give the same rows when run again', () => {
    for (const sql of [
      'SELECT * FROM t',
      "SELECT id, count(*) OVER (ORDER BY id) FROM t WHERE payload LIKE 'a%' ORDER BY 2 LIMIT 10",
      "SELECT loud, json_extract(payload, '$.a'), tally_pseudonym('k', id) FROM plain JOIN t USING (id)",
      "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT x, 'random()' FROM c",
    ]) {
      expect([sql, repeatable(db, sql)]).toEqual([sql, true]);
    }
  });

  it('fails for random values, the clock, and what it cannot read', () => {
    for (const sql of [
      'SELECT id, random() FROM t',
      'SELECT * FROM t ORDER BY randomblob(4)',
      'SELECT * FROM shuffled',
      "SELECT * FROM t WHERE day > date('now', '-1 day')",
      'SELECT id, CURRENT_TIMESTAMP FROM t',
      "SELECT (SELECT strftime('%s') ) AS now, id FROM t",
      'SELECT nonsense FROM',
    ]) {
      expect([sql, repeatable(db, sql)]).toEqual([sql, false]);
    }
  });
});
