/**
 * What one person may read, in one place, under the access policy: per database, the tables and columns granted,
 * how each sensitive column is masked for them, and the rule behind every answer (for `tally policy explain` and
 * for refusals). The person and the place come only from what the platform verified (`Principal`).
 */
import type { ColumnAccess } from '../ports/access.js';
import type { Place } from '../ports/chat.js';
import { matchesColumnPattern, matchesPattern } from './name-pattern.js';
import type { Grant, Policy, PrincipalSet, Treatment } from './policy-file.js';

/** A message's sender and where it was sent, as the platform verified them. */
export interface Principal {
  platform: 'slack' | 'discord' | 'console';
  userId: string;
  /** Slack user group ids, Discord role ids. */
  groups: readonly string[];
  place: Place;
  /** Discord: the guild. */
  guild?: string;
}

export type { ColumnAccess } from '../ports/access.js';

/** One grant that applies, and why: which sets matched and by what. */
export interface AppliedGrant {
  /** Its index in the file's `grants`. */
  index: number;
  grant: Grant;
  /** e.g. `analysts (slack_usergroups S0ANALYSTS)`. */
  via: string[];
}

function tableMatches(pattern: string, table: string): boolean {
  return pattern.includes('.') === table.includes('.') && matchesPattern(pattern, table);
}

export class DatabaseAccess {
  constructor(
    readonly database: string,
    readonly grants: readonly AppliedGrant[],
    private readonly sensitive: Readonly<Record<string, Treatment>>,
  ) {}

  /**
   * The grant that lets this person read `table`, if any. A table of another schema (`schema.table`) is granted
   * only by a pattern that names a schema (`finance.*`); `*` means the tables of the database's own schema.
   */
  tableGrant(table: string): AppliedGrant | undefined {
    return this.grants.find(({ grant }) => grant.tables.some((pattern) => tableMatches(pattern, table)));
  }

  /** How `table.column` reaches this person, and the rule that decides it. */
  column(table: string, column: string): { access: ColumnAccess; rule: string } {
    const granting = this.grants.filter(({ grant }) => grant.tables.some((pattern) => tableMatches(pattern, table)));
    if (granting.length === 0) return { access: 'denied', rule: `no grant names table ${table}` };
    const visible = granting.find(
      ({ grant }) => !grant.columns || grant.columns.some((pattern) => matchesColumnPattern(pattern, table, column)),
    );
    if (!visible) {
      return {
        access: 'denied',
        rule: `grants[${granting.map((applied) => applied.index).join('], grants[')}].columns`,
      };
    }
    const pattern = Object.keys(this.sensitive).find((candidate) => matchesColumnPattern(candidate, table, column));
    if (pattern === undefined) return { access: 'raw', rule: `grants[${visible.index}]` };
    const unmasked = granting.find(
      ({ grant }) =>
        (!grant.columns || grant.columns.some((candidate) => matchesColumnPattern(candidate, table, column))) &&
        grant.raw.some((candidate) => matchesColumnPattern(candidate, table, column)),
    );
    if (unmasked) return { access: 'raw', rule: `grants[${unmasked.index}].raw` };
    const treatment = this.sensitive[pattern] as Treatment;
    return { access: treatment, rule: `databases.${this.database}.sensitive '${pattern}'` };
  }
}

export interface Access {
  principal: Principal;
  /** The databases this person may read here, by name. */
  databases: ReadonlyMap<string, DatabaseAccess>;
  /** Databases granted to this person whose results may not be shown here, with the reason. */
  hidden: ReadonlyMap<string, string>;
}

const PLATFORM_LISTS = {
  slack: { users: 'slack_users', groups: 'slack_usergroups', channels: 'slack_channels' },
  discord: { users: 'discord_users', groups: 'discord_roles', channels: 'discord_channels' },
  console: { users: 'console_users', groups: undefined, channels: undefined },
} as const;

/** Why `set` matches `principal` (empty: it does not). */
export function setMatches(set: PrincipalSet, principal: Principal): string[] {
  const lists = PLATFORM_LISTS[principal.platform];
  const reasons: string[] = [];
  if (set[lists.users].includes(principal.userId)) reasons.push(`${lists.users} ${principal.userId}`);
  if (lists.groups) {
    for (const group of principal.groups)
      if (set[lists.groups].includes(group)) reasons.push(`${lists.groups} ${group}`);
  }
  if (lists.channels && set[lists.channels].includes(principal.place.channel)) {
    reasons.push(`${lists.channels} ${principal.place.channel}`);
  }
  if (principal.platform === 'discord' && principal.guild && set.discord_guilds.includes(principal.guild)) {
    reasons.push(`discord_guilds ${principal.guild}`);
  }
  return reasons;
}

/** Whether the place may show a database's results: listed channels, or a DM (the console is one). */
function shownHere(policy: Policy, database: string, principal: Principal): string | undefined {
  const showIn = policy.databases[database]?.show_in;
  if (!showIn || principal.place.dm || principal.platform === 'console') return undefined;
  const lists = PLATFORM_LISTS[principal.platform];
  const listed = showIn.some((name) => {
    const set = policy.principals[name];
    if (!set || !lists.channels) return false;
    const inGuild =
      principal.platform === 'discord' && !!principal.guild && set.discord_guilds.includes(principal.guild);
    return set[lists.channels].includes(principal.place.channel) || inGuild;
  });
  return listed
    ? undefined
    : `${database}'s results may be shown only in the channels of ${showIn.join(', ')} (databases.${database}.show_in) and in direct messages`;
}

export function resolveAccess(policy: Policy, principal: Principal): Access {
  const applied = new Map<string, AppliedGrant[]>();
  for (const [index, grant] of policy.grants.entries()) {
    const via = grant.to.flatMap((name) => {
      const set = policy.principals[name];
      const reasons = set ? setMatches(set, principal) : [];
      return reasons.length > 0 ? [`${name} (${reasons.join(', ')})`] : [];
    });
    if (via.length === 0) continue;
    applied.set(grant.database, [...(applied.get(grant.database) ?? []), { index, grant, via }]);
  }
  const databases = new Map<string, DatabaseAccess>();
  const hidden = new Map<string, string>();
  for (const [database, grants] of applied) {
    const reason = shownHere(policy, database, principal);
    if (reason) hidden.set(database, reason);
    else databases.set(database, new DatabaseAccess(database, grants, policy.databases[database]?.sensitive ?? {}));
  }
  return { principal, databases, hidden };
}
