/**
 * Which of the Slack user groups the access policy names a person is in. Slack has no "groups of a
 * user" method, so each group's member list is read with `usergroups.users.list` (scope
 * `usergroups:read`, rate tier 2) and kept for `ttlMs`; a lookup after that reads it again.
 * Lookups of a group that is being read share the one request. A read that fails keeps the last
 * list it had (a group never read counts as having no members) and logs a warning naming the group
 * and Slack's error; it is tried again after `retryMs`, not on every message.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/base/logger.js';

/** Default time a group's member list is kept: 5 minutes. */
export const USERGROUP_TTL_MS = 5 * 60_000;
/** Longest wait before a failed read is tried again. */
const MAX_RETRY_MS = 30_000;

export interface SlackUsergroupsOptions {
  /** The Web API client (the Bolt app's), with the bot token. */
  client: Pick<webApi.WebClient, 'usergroups'>;
  /** The user group ids (`S…`) to resolve; people's other groups are never looked at. */
  usergroups: readonly string[];
  /** How long a group's member list is used before it is read again, in ms. Default 5 minutes. */
  ttlMs?: number;
  /** Milliseconds since the epoch; tests move it by hand. Default `Date.now`. */
  now?: () => number;
  logger: Logger;
}

interface GroupEntry {
  /** The last list read; undefined until a read succeeded. */
  members: ReadonlySet<string> | undefined;
  /** When the next read is due (after the TTL, or after a failure's retry wait). */
  dueAt: number;
  /** The read under way, shared by every lookup that waits for it. */
  reading: Promise<void> | undefined;
}

const NOBODY: ReadonlySet<string> = new Set();

/** What to change for the Slack errors a misconfiguration gives. */
const HINTS: Record<string, string> = {
  missing_scope:
    "add the usergroups:read bot scope to tally's Slack app (adapters/slack/manifest.yaml) and reinstall it",
  no_such_subteam: 'the access policy names a user group id (S…) this workspace does not have',
  plan_upgrade_required: 'user groups need a paid Slack plan',
};

export class SlackUsergroups {
  private readonly entries = new Map<string, GroupEntry>();
  private readonly ttlMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SlackUsergroupsOptions) {
    this.ttlMs = options.ttlMs ?? USERGROUP_TTL_MS;
    this.retryMs = Math.min(this.ttlMs, MAX_RETRY_MS);
    this.now = options.now ?? Date.now;
  }

  /** The configured groups `userId` is in, in configuration order (possibly none). Never rejects. */
  async groupsOf(userId: string): Promise<string[]> {
    const groups = [...new Set(this.options.usergroups)];
    const members = await Promise.all(groups.map((group) => this.members(group)));
    return groups.filter((_group, index) => members[index]?.has(userId));
  }

  private async members(group: string): Promise<ReadonlySet<string>> {
    let entry = this.entries.get(group);
    if (!entry) {
      entry = { members: undefined, dueAt: 0, reading: undefined };
      this.entries.set(group, entry);
    }
    if (this.now() >= entry.dueAt) {
      const current = entry;
      current.reading ??= this.read(group, current).finally(() => {
        current.reading = undefined;
      });
    }
    // A lookup while a read is under way waits for it, so a refreshed list is used as soon as there is one.
    if (entry.reading) await entry.reading;
    return entry.members ?? NOBODY;
  }

  private async read(group: string, entry: GroupEntry): Promise<void> {
    try {
      const result = await this.options.client.usergroups.users.list({ usergroup: group });
      entry.members = new Set(result.users ?? []);
      entry.dueAt = this.now() + this.ttlMs;
    } catch (error) {
      entry.dueAt = this.now() + this.retryMs;
      const data = (error as { data?: { error?: string; needed?: string } }).data;
      const slackError = data?.error ?? (error as { code?: string }).code ?? String(error);
      const hint = HINTS[slackError];
      const fields = {
        err: error,
        usergroup: group,
        slackError,
        ...(data?.needed ? { neededScope: data.needed } : {}),
        ...(hint ? { hint } : {}),
      };
      if (entry.members) {
        this.options.logger.warn(
          { ...fields, keptMembers: entry.members.size },
          'could not refresh a Slack user group; keeping its last known members',
        );
      } else {
        this.options.logger.warn(fields, 'could not read a Slack user group; nobody counts as in it');
      }
    }
  }
}
