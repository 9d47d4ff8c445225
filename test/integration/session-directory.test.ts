/**
 * A person's sessions as their home surfaces show them, read from the real embedded store: newest
 * first, with the request, status, accepted sections and exports; starter prompts from the
 * databases and playbooks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyConversation } from '../../src/agent/conversation.js';
import { loadPlaybooks } from '../../src/agent/playbooks.js';
import { createLogger } from '../../src/logger.js';
import type { Database } from '../../src/ports/database.js';
import type { Store } from '../../src/ports/store.js';
import { emptyReport } from '../../src/report/report.js';
import { reportKey } from '../../src/report/report-book.js';
import { sessionDirectory, userSessionsKey } from '../../src/sessions/session-directory.js';
import { newSession, sessionKey } from '../../src/sessions/session-record.js';
import { createStore } from '../../src/store/create-store.js';

let folder: string;
let store: Store;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-directory-'));
  store = await createStore({ sqlitePath: join(folder, 'state.db'), logger: createLogger({ level: 'silent' }) });
});

afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the session directory', () => {
  it("lists a person's sessions newest first, with what each is waiting for", async () => {
    const older = { ...newSession('t1', 'U1', 1), request: 'Are the tables consistent?', updatedAt: 5 };
    older.conversation = {
      ...emptyConversation(),
      pending: { kind: 'review', callId: 'c', section: 's1', version: 1 },
    };
    const newer = {
      ...newSession('t2', 'U1', 2),
      request: 'What drives churn?',
      exports: ['report.md', 'report.html'],
    };
    await store.set(sessionKey('t1'), older);
    await store.set(sessionKey('t2'), newer);
    await store.set(sessionKey('t3'), newSession('t3', 'U2', 3));
    for (const [user, thread] of [
      ['U1', 't1'],
      ['U1', 't2'],
      ['U2', 't3'],
    ] as const)
      await store.append(userSessionsKey(user), thread);
    await store.set(reportKey('t2'), { ...emptyReport('t2', 2), accepted: ['s1', 's2'] });
    const directory = sessionDirectory({
      store,
      databases: [],
      playbooks: () => [],
      working: (threadKey) => threadKey === 't2',
    });
    const sessions = await directory.recentSessions('U1', 10);
    expect(
      sessions.map(({ threadKey, request, status, sectionsAccepted, exports }) => ({
        threadKey,
        request,
        status,
        sectionsAccepted,
        exports,
      })),
    ).toEqual([
      {
        threadKey: 't2',
        request: 'What drives churn?',
        status: 'working',
        sectionsAccepted: 2,
        exports: ['report.md', 'report.html'],
      },
      {
        threadKey: 't1',
        request: 'Are the tables consistent?',
        status: 'waiting for review',
        sectionsAccepted: 0,
        exports: [],
      },
    ]);
    expect(await directory.recentSessions('U1', 1)).toHaveLength(1);
    expect(await directory.recentSessions('U3', 10)).toEqual([]);
  });

  it('builds starter prompts from the databases and the playbooks that say what they answer', async () => {
    const directory = sessionDirectory({
      store,
      databases: [{ name: 'telco_db' } as Database],
      playbooks: () => [],
      working: () => false,
    });
    expect(directory.starterPrompts()).toEqual([
      { title: 'Check telco_db', message: 'Are the telco_db tables consistent?' },
    ]);
    const playbooks = await loadPlaybooks();
    const withPlaybooks = sessionDirectory({ store, databases: [], playbooks: () => playbooks, working: () => false });
    expect(withPlaybooks.starterPrompts()).toContainEqual({
      title: 'Churn driver analysis',
      message: 'What drives churn?',
    });
    expect(directory.defaultSettings()).toContain('decompose: auto');
  });
});
