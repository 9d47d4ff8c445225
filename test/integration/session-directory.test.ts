/**
 * A person's sessions as their home surfaces show them, read from the real embedded store: newest
 * first, with the request, status, accepted sections and exports; starter prompts from the
 * databases and playbooks. Under the access policy a viewer sees only the sessions whose data they
 * may still read where they look, and starter prompts for the databases they may read there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyConversation } from '../../src/agent/conversation.js';
import { loadPlaybooks } from '../../src/agent/playbooks.js';
import { createLogger } from '../../src/base/logger.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { UsedGrants } from '../../src/ports/access.js';
import type { Viewer } from '../../src/ports/chat.js';
import type { Database } from '../../src/ports/database.js';
import type { Store } from '../../src/ports/store.js';
import { emptyReport } from '../../src/report/report.js';
import { reportKey } from '../../src/report/report-book.js';
import { sessionDirectory, userSessionsKey } from '../../src/sessions/session-directory.js';
import { newSession, sessionKey } from '../../src/sessions/session-record.js';
import { createStore } from '../../src/store/create-store.js';

let folder: string;
let store: Store;

/** Someone looking at a Slack surface in `channel` (a channel, not a DM). */
const viewer = (userId: string, options: { channel?: string; groups?: string[] } = {}): Viewer => {
  const channel = options.channel ?? 'C1ANALYTICS';
  return {
    channel: `slack:T1:${channel}`,
    user: { id: userId, ...(options.groups ? { groups: options.groups } : {}) },
    place: { channel, dm: false },
  };
};

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
    const sessions = await directory.recentSessions(viewer('U1'), 10);
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
    expect(await directory.recentSessions(viewer('U1'), 1)).toHaveLength(1);
    expect(await directory.recentSessions(viewer('U3'), 10)).toEqual([]);
  });

  it('builds starter prompts from the databases and the playbooks that say what they answer', async () => {
    const directory = sessionDirectory({
      store,
      databases: [{ name: 'telco_db' } as Database],
      playbooks: () => [],
      working: () => false,
    });
    expect(directory.starterPrompts(viewer('U1'))).toEqual([
      { title: 'Check telco_db', message: 'Are the telco_db tables consistent?' },
    ]);
    const playbooks = await loadPlaybooks();
    const withPlaybooks = sessionDirectory({ store, databases: [], playbooks: () => playbooks, working: () => false });
    expect(withPlaybooks.starterPrompts(viewer('U1'))).toContainEqual({
      title: 'Churn driver analysis',
      message: 'What drives churn?',
    });
    expect(directory.defaultSettings()).toContain('decompose: auto');
  });

  it('shows a viewer only the sessions and databases the access policy lets them read where they look', async () => {
    const names = ['crm', 'finance', 'telco_db'];
    const policy = parsePolicy(
      `
principals:
  ann: { slack_users: [U1] }
  analysts: { slack_usergroups: [S1ANALYSTS] }
  finance_room: { slack_channels: [C1FINANCE] }
databases:
  crm: { sensitive: { customers.email: hash } }
  finance: { show_in: [finance_room] }
grants:
  - { to: [ann], database: crm, tables: [customers] }
  - { to: [analysts], database: finance, tables: [salaries] }
`,
      'policy.yaml',
      names,
    );
    const databases = names.map((name) => ({ name }) as Database);
    const access = new AccessPolicy(policy, { consoleUser: 'ops', pseudonymSecret: 'a-secret-of-16-chars' }, databases);
    const sessions: Array<[string, string, UsedGrants | undefined]> = [
      ['t1', 'Which segments do customers fall in?', { 'crm/customers': { id: 'raw', segment: 'raw' } }],
      ['t2', 'What do the salaries add up to?', { 'finance/salaries': { amount: 'raw' } }],
      ['t3', 'List the customer emails', { 'crm/customers': { email: 'raw' } }],
      ['t4', 'What can you do?', undefined],
    ];
    for (const [index, [threadKey, request, grantsUsed]] of sessions.entries()) {
      await store.set(sessionKey(threadKey), {
        ...newSession(threadKey, 'U1', index),
        request,
        ...(grantsUsed ? { grantsUsed } : {}),
      });
      await store.append(userSessionsKey('U1'), threadKey);
    }
    const directory = sessionDirectory({ store, databases, playbooks: () => [], working: () => false, access });
    const shown = async (who: Viewer, limit = 10) =>
      (await directory.recentSessions(who, limit)).map((session) => session.threadKey);

    // Ann alone may read crm.customers, emails pseudonymised: not the salaries, nor a thread that saw raw emails.
    expect(await shown(viewer('U1'))).toEqual(['t4', 't1']);
    expect(await shown(viewer('U1'), 1)).toEqual(['t4']);
    expect(directory.starterPrompts(viewer('U1'))).toEqual([
      { title: 'Check crm', message: 'Are the crm tables consistent?' },
    ]);
    // As an analyst she may read the salaries too, but only where finance may be shown.
    const analyst = { groups: ['S1ANALYSTS'] };
    expect(await shown(viewer('U1', analyst))).toEqual(['t4', 't1']);
    expect(await shown(viewer('U1', { ...analyst, channel: 'C1FINANCE' }))).toEqual(['t4', 't2', 't1']);
    expect(directory.starterPrompts(viewer('U1', { ...analyst, channel: 'C1FINANCE' }))).toEqual([
      { title: 'Check crm', message: 'Are the crm tables consistent?' },
      { title: 'Check finance', message: 'Are the finance tables consistent?' },
    ]);
  });
});
