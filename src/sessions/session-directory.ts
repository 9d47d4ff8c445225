/**
 * What adapters show beyond one thread: a person's recent sessions (Slack's App Home, `/tally
 * sessions`, Discord's autocomplete), starter prompts from the configured databases and playbooks,
 * and the settings a new thread starts with.
 */

import { offeredTo } from '../agent/derived-access.js';
import type { Playbook } from '../agent/playbooks.js';
import { DEFAULT_SETTINGS, describeSettings } from '../agent/settings.js';
import type { AccessControl, Reader } from '../ports/access.js';
import type { SessionSummary, TallyDirectory, ThreadKey } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Store } from '../ports/store.js';
import type { Report } from '../report/report.js';
import { reportKey } from '../report/report-book.js';
import { type SessionRecord, sessionKey } from './session-record.js';

/** The list of a person's sessions (thread keys, oldest first). */
export const userSessionsKey = (userId: string) => `sessions-of:${userId}`;

export interface DirectoryOptions {
  store: Store;
  databases: Database[];
  playbooks: () => Playbook[];
  /** Threads with a turn running now. */
  working: (threadKey: ThreadKey) => boolean;
  /** The access policy: sessions and databases a viewer may not see are left out. */
  access?: AccessControl;
}

export function sessionDirectory(options: DirectoryOptions): TallyDirectory {
  return {
    async recentSessions(viewer, limit) {
      const keys = [...new Set((await options.store.range<ThreadKey>(userSessionsKey(viewer.user.id))).reverse())];
      const summaries: SessionSummary[] = [];
      for (const threadKey of keys) {
        if (summaries.length >= limit) break;
        const session = await options.store.get<SessionRecord>(sessionKey(threadKey));
        if (!session || (options.access && !options.access.mayView(viewer, session.grantsUsed))) continue;
        const report = await options.store.get<Report>(reportKey(threadKey));
        summaries.push(summarise(session, report, options.working(threadKey)));
      }
      return summaries;
    },
    starterPrompts(viewer) {
      const readable = options.access?.databaseNames(viewer);
      const databases = options.databases.filter((database) => !readable || readable.includes(database.name));
      const fromDatabases = databases.map((database) => ({
        title: `Check ${database.name}`,
        message: `Are the ${database.name} tables consistent?`,
      }));
      // A playbook saved from a thread is suggested only to a viewer who may read all that thread read, there.
      const { access } = options;
      const reader: Reader | undefined = access && { mayRead: (used) => access.mayView(viewer, used) };
      const fromPlaybooks = options
        .playbooks()
        .filter((playbook) => playbook.ask && offeredTo(playbook.derivedFrom, reader))
        .map((playbook) => ({ title: playbook.title, message: playbook.ask ?? '' }));
      return [...fromDatabases, ...fromPlaybooks];
    },
    defaultSettings() {
      return describeSettings(DEFAULT_SETTINGS)
        .split(' ')
        .map((pair) => pair.replace('=', ': '));
    },
  };
}

function summarise(session: SessionRecord, report: Report | undefined, working: boolean): SessionSummary {
  const { conversation } = session;
  const firstRequest = conversation.messages.find((message) => message.role === 'user')?.content;
  const pending = conversation.pending?.kind;
  const status: SessionSummary['status'] = working
    ? 'working'
    : pending === 'review'
      ? 'waiting for review'
      : pending === 'approval'
        ? 'waiting for approval'
        : pending === 'tool' || pending === 'triage'
          ? 'waiting for an answer'
          : 'idle';
  return {
    threadKey: session.threadKey,
    request: (session.request ?? conversation.request ?? firstRequest ?? '').slice(0, 200),
    status,
    sectionsAccepted: report?.accepted.length ?? 0,
    exports: session.exports ?? [],
    updatedAt: session.updatedAt ?? session.createdAt,
  };
}
