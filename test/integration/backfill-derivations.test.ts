/**
 * Saved playbooks and learned verified queries from before tally recorded their thread's grants, against the real
 * embedded store: where the thread is still known (the store's record of the saved playbook, the draft's own line,
 * an accepted section whose query it is) its grants are written into the file; the rest are left without, and are
 * then offered to no one under a policy.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadSavedPlaybooks } from '../../src/agent/saved-playbooks.js';
import { createLogger } from '../../src/base/logger.js';
import { FileKnowledge } from '../../src/knowledge/file-knowledge.js';
import type { UsedGrants } from '../../src/ports/access.js';
import type { Store } from '../../src/ports/store.js';
import type { Report } from '../../src/report/report.js';
import { reportKey } from '../../src/report/report-book.js';
import { backfillDerivations } from '../../src/sessions/backfill-derivations.js';
import { SESSIONS_LIST } from '../../src/sessions/session-log.js';
import { newSession, savedPlaybookKey, sessionKey } from '../../src/sessions/session-record.js';
import { createStore } from '../../src/store/create-store.js';

const logger = createLogger({ level: 'silent' });
const SALARIES: UsedGrants = { 'finance/salaries': { name: 'raw', salary: 'raw' } };
const CONTACTS: UsedGrants = { 'crm/customers': { name: 'raw' } };
const SQL = 'SELECT name, salary FROM salaries ORDER BY salary DESC LIMIT 2';

const playbook = (title: string, hint = 'Check the numbers.') => `---
title: ${title}
tags: earners
when: The user asks something like "${title}?"
---
## Requirements

- Establish ${title}; the accepted report found: Frank Hale earns 412000.

## Specs

- Stage **analysis**: narrative only.

## Hints

- ${hint}

## Example code

No code.
`;

let folder: string;
let store: Store & { close(): Promise<void> };
let playbookDir: string;
let knowledgeDir: string;

async function thread(threadKey: string, grantsUsed?: UsedGrants): Promise<void> {
  await store.append(SESSIONS_LIST, threadKey);
  await store.set(sessionKey(threadKey), {
    ...newSession(threadKey, 'U0FINANCE', 0),
    ...(grantsUsed ? { grantsUsed } : {}),
  });
}

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-backfill-'));
  store = await createStore({ sqlitePath: join(folder, 'state.db'), logger });
  playbookDir = join(folder, 'playbooks');
  knowledgeDir = join(folder, 'knowledge');
  await mkdir(playbookDir, { recursive: true });
  await mkdir(join(knowledgeDir, 'finance'), { recursive: true });
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

describe('recording the grants of what was saved before they were recorded', () => {
  it("fills in a saved playbook's grants from its thread, found by the store or by the draft's own line", async () => {
    await thread('slack:T0:C0FINANCE:1.0', SALARIES);
    await thread('slack:T0:C0GENERAL:2.0', CONTACTS);
    const byStore = join(playbookDir, 'top-earners.md');
    await writeFile(byStore, playbook('Top earners'));
    await store.set(savedPlaybookKey('slack:T0:C0FINANCE:1.0'), byStore);
    const byLine = join(playbookDir, 'contacts.md');
    await writeFile(
      byLine,
      playbook('Contacts', 'Drafted from the accepted report of thread `slack:T0:C0GENERAL:2.0` (1 accepted section).'),
    );

    const result = await backfillDerivations({ store, playbookDir, knowledgeDir, logger });

    expect(result).toEqual({ filled: [byLine, byStore].sort(), unknown: [] });
    const saved = await loadSavedPlaybooks(playbookDir);
    expect(Object.fromEntries(saved.map((entry) => [entry.file, entry.derivedFrom]))).toEqual({
      'top-earners.md': { thread: 'slack:T0:C0FINANCE:1.0', grantsUsed: SALARIES },
      'contacts.md': { thread: 'slack:T0:C0GENERAL:2.0', grantsUsed: CONTACTS },
    });
    // Run again (another replica, the next start): nothing left to do, nothing changed.
    const before = await readFile(byStore, 'utf8');
    expect(await backfillDerivations({ store, playbookDir, knowledgeDir, logger })).toEqual({
      filled: [],
      unknown: [],
    });
    expect(await readFile(byStore, 'utf8')).toBe(before);
  });

  it('leaves a playbook whose thread is gone, or whose thread recorded no grants, not known', async () => {
    await thread('console:local:3');
    const gone = join(playbookDir, 'gone.md');
    await writeFile(gone, playbook('Gone', 'Drafted from the accepted report of thread `slack:T0:C0X:9.0`.'));
    const untracked = join(playbookDir, 'untracked.md');
    await writeFile(untracked, playbook('Untracked', 'Drafted from the accepted report of thread `console:local:3`.'));

    const result = await backfillDerivations({ store, playbookDir, knowledgeDir, logger });

    expect(result).toEqual({ filled: [], unknown: [gone, untracked] });
    expect(await readFile(gone, 'utf8')).toBe(
      playbook('Gone', 'Drafted from the accepted report of thread `slack:T0:C0X:9.0`.'),
    );
    const saved = await loadSavedPlaybooks(playbookDir);
    expect(saved.map((entry) => entry.derivedFrom)).toEqual([{}, {}]);
  });

  it("fills in a learned query's grants from the thread whose accepted section it came from", async () => {
    await thread('slack:T0:C0FINANCE:1.0', SALARIES);
    const report: Report = {
      threadKey: 'slack:T0:C0FINANCE:1.0',
      createdAt: 0,
      accepted: ['s1'],
      sections: [
        {
          id: 's1',
          request: 'Who are the top earners?',
          status: 'accepted',
          decisions: [],
          versions: [
            {
              version: 1,
              title: 'Top earners',
              narrative: 'Frank Hale earns 412000.',
              createdAt: 0,
              figures: [],
              cells: [
                { language: 'sql', code: SQL, database: 'finance', author: 'model', figures: [], ranAt: 0, call: 'c1' },
              ],
              checks: [{ text: '412000', start: 16, end: 22, status: 'grounded', source: 'c1' }],
            },
          ],
        },
      ],
    };
    await store.set(reportKey('slack:T0:C0FINANCE:1.0'), report);
    const learned = (name: string, question: string) => ({
      queries: [{ name, question, sql: SQL, verified_by: 'U0FINANCE' }],
    });
    const found = join(knowledgeDir, 'finance', 'verified-top-earners.yaml');
    await writeFile(found, stringify(learned('Top earners', 'Who are the top earners?')));
    const lost = join(knowledgeDir, 'finance', 'verified-other.yaml');
    await writeFile(lost, stringify(learned('Other', 'A question no thread asked')));

    const result = await backfillDerivations({ store, playbookDir, knowledgeDir, logger });

    expect(result).toEqual({ filled: [found], unknown: [lost] });
    expect(parse(await readFile(found, 'utf8'))).toEqual({
      ...learned('Top earners', 'Who are the top earners?'),
      thread: 'slack:T0:C0FINANCE:1.0',
      grants: SALARIES,
    });
    const knowledge = await FileKnowledge.load([knowledgeDir], {}, { learnedDir: knowledgeDir });
    expect(knowledge.query('finance', 'Top earners')?.derivedFrom).toEqual({
      thread: 'slack:T0:C0FINANCE:1.0',
      grantsUsed: SALARIES,
    });
    expect(knowledge.query('finance', 'Other')?.derivedFrom).toEqual({});
  });
});
