/**
 * Playbooks and verified queries saved from threads before tally recorded what their thread read. Where the thread
 * is still known and its session holds its grants, they are written into the file now (a playbook's front matter,
 * a query file's `thread:` and `grants:`); the rest stay without, and under an access policy are offered to no one
 * (derived-access.ts). Runs at start-up, before the files are loaded; idempotent, so replicas may race.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { splitFrontMatter } from '../agent/front-matter.js';
import { stampDerivation } from '../agent/playbook-derivation.js';
import type { Logger } from '../base/logger.js';
import type { UsedGrants } from '../ports/access.js';
import type { Store } from '../ports/store.js';
import { ReportBook } from '../report/report-book.js';
import { proposalFor } from './query-proposals.js';
import { listSessions } from './session-log.js';
import { type SessionRecord, savedPlaybookKey, sessionKey } from './session-record.js';

export interface BackfillOptions {
  store: Store;
  /** Saved playbooks (TALLY_PLAYBOOK_DIR). */
  playbookDir: string;
  /** Learned verified queries, `<database>/verified-*.yaml` (TALLY_KNOWLEDGE_DIR). */
  knowledgeDir: string;
  logger: Logger;
}

export interface Backfilled {
  /** Files that now record their thread's grants. */
  filled: string[];
  /** Files whose thread, or its grants, is not known: offered to no one under a policy. */
  unknown: string[];
}

/** The playbook's line the draft writes (playbook-draft.ts), naming its thread when the store no longer does. */
const DRAFTED_FROM = /Drafted from the accepted report of thread `([^`]+)`/;

export async function backfillDerivations(options: BackfillOptions): Promise<Backfilled> {
  const sources = new ThreadSources(options.store);
  const result: Backfilled = { filled: [], unknown: [] };
  const settle = async (path: string, thread: string | undefined, write: (grants: UsedGrants) => string) => {
    const grants = thread ? await sources.grantsOf(thread) : undefined;
    if (!thread || !grants) {
      result.unknown.push(path);
      return;
    }
    await writeFile(path, write(grants));
    result.filled.push(path);
  };
  for (const path of await filesIn(options.playbookDir, /\.md$/i)) {
    if (/^readme\.md$/i.test(path.split(/[\\/]/).pop() ?? '')) continue;
    const text = await readFile(path, 'utf8');
    const fields = frontMatterOf(path, text, options.logger);
    if (!fields || fields.grants) continue;
    const thread =
      fields.thread ?? (await sources.playbookThread(path)) ?? (await sources.known(DRAFTED_FROM.exec(text)?.[1]));
    await settle(path, thread, (grantsUsed) => stampDerivation(text, { ...(thread ? { thread } : {}), grantsUsed }));
  }
  for (const database of await foldersIn(options.knowledgeDir)) {
    for (const path of await filesIn(join(options.knowledgeDir, database), /^verified-.*\.ya?ml$/i)) {
      const file = (parse(await readFile(path, 'utf8')) ?? {}) as LearnedFile;
      if (file.grants || !Array.isArray(file.queries)) continue;
      const [query] = file.queries;
      const thread = file.thread ?? (query ? await sources.queryThread(database, query) : undefined);
      await settle(path, thread, (grants) => stringify({ ...file, thread, grants }));
    }
  }
  if (result.filled.length > 0)
    options.logger.info({ files: result.filled }, 'recorded the grants of saved playbooks and queries');
  return result;
}

interface LearnedFile {
  queries?: Array<{ question?: string; sql?: string }>;
  thread?: string;
  grants?: UsedGrants;
}

/** The store's threads, looked through once and only when a file needs its thread found. */
class ThreadSources {
  private playbooks: Map<string, string> | undefined;
  private queries: Map<string, string> | undefined;

  constructor(private readonly store: Store) {}

  async grantsOf(thread: string): Promise<UsedGrants | undefined> {
    return (await this.store.get<SessionRecord>(sessionKey(thread)))?.grantsUsed;
  }

  /** `thread` when the store still has its session. */
  async known(thread: string | undefined): Promise<string | undefined> {
    return thread && (await this.store.get<SessionRecord>(sessionKey(thread))) ? thread : undefined;
  }

  /** The thread whose `save as playbook` wrote the file at `path`. */
  async playbookThread(path: string): Promise<string | undefined> {
    if (!this.playbooks) {
      this.playbooks = new Map();
      for (const thread of await listSessions(this.store)) {
        const saved = await this.store.get<string>(savedPlaybookKey(thread));
        if (saved) this.playbooks.set(resolve(saved), thread);
      }
    }
    return this.playbooks.get(resolve(path));
  }

  /** The thread with an accepted section whose proposed query is this one (same database, question and SQL). */
  async queryThread(database: string, query: { question?: string; sql?: string }): Promise<string | undefined> {
    if (!this.queries) {
      this.queries = new Map();
      for (const thread of await listSessions(this.store)) {
        const report = await new ReportBook(this.store, thread).load();
        for (const section of report.sections.filter((candidate) => candidate.status === 'accepted')) {
          const proposal = proposalFor(section);
          if (proposal) this.queries.set(queryKey(proposal.database, proposal.question, proposal.sql), thread);
        }
      }
    }
    return this.queries.get(queryKey(database, query.question ?? '', (query.sql ?? '').trim()));
  }
}

const queryKey = (database: string, question: string, sql: string) => JSON.stringify([database, question, sql]);

function frontMatterOf(path: string, text: string, logger: Logger): Record<string, string> | undefined {
  try {
    return splitFrontMatter(path, text).fields;
  } catch (error) {
    // Loading the playbooks names the problem and stops start-up; nothing to fill in here.
    logger.debug({ err: error, path }, 'playbook front matter not readable');
    return undefined;
  }
}

async function filesIn(folder: string, pattern: RegExp): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => join(folder, name));
}

async function foldersIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}
