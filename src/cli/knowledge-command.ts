/**
 * `tally knowledge check`: checks the knowledge store (tally's telco set and TALLY_KNOWLEDGE_DIR)
 * against the configured databases; exits 1 naming each stale table, column or verified query.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import { openDatabase, sqlitePath } from '../db/open-database.js';
import { checkKnowledge } from '../knowledge/check-knowledge.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR, telcoAliases } from '../knowledge/file-knowledge.js';
import type { Database } from '../ports/database.js';
import { commandUsage } from './cli-usage.js';

export async function knowledgeCommand(words: string[], print: (line: string) => void): Promise<number> {
  if (words.length !== 1 || words[0] !== 'check') {
    process.stderr.write(`tally knowledge: expected 'check'\n${commandUsage('knowledge')}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: 'silent' });
  const databases: Database[] = [];
  try {
    for (const settings of config.databases) {
      if (settings.embedded && !existsSync(sqlitePath(settings.url))) {
        print(`${settings.name}: the demo database is not built yet (run tally demo); not checked`);
        continue;
      }
      databases.push(await openDatabase(settings, config.databaseLimits, logger));
    }
    const aliases = await telcoAliases(databases);
    const knowledge = await FileKnowledge.load([TELCO_KNOWLEDGE_DIR, config.review.knowledgeDir], aliases);
    const check = await checkKnowledge(knowledge, databases);
    for (const name of check.unchecked) print(`${name}: no such database is configured; its knowledge was not checked`);
    for (const problem of check.problems) print(`stale: ${problem.source}: ${problem.problem}`);
    const { references, queries } = check.checked;
    print(
      `${check.problems.length === 0 ? 'knowledge is up to date' : `${check.problems.length} stale`}: ${references} table and column references, ${queries} verified queries checked`,
    );
    return check.problems.length === 0 ? 0 : 1;
  } finally {
    await Promise.all(databases.map((database) => database.close()));
  }
}
