/**
 * The access policy at work: loaded once at start-up, it turns a message's principal into what that person may
 * read here (`Access`) and into the databases their turn gets: each granted one wrapped so it enforces the grant
 * (`policedDatabase`); ungranted ones are not there at all.
 */

import type { AccessSettings } from '../base/config.js';
import { ConfigError } from '../base/errors.js';
import {
  type AccessControl,
  type MessageAccess,
  NOT_GRANTED_TEXT,
  type TableRead,
  type UsedGrants,
} from '../ports/access.js';
import type { Inbound, Viewer } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import { type Access, type Principal, resolveAccess, setMatches } from './access.js';
import { pseudonymKey } from './masked-view.js';
import { policedDatabase } from './policed-database.js';
import type { Policy } from './policy-file.js';
import type { ProfileDatabases } from './profile-databases.js';
import { missingGrants, recordReads } from './thread-grants.js';

export class AccessPolicy implements AccessControl {
  constructor(
    readonly policy: Policy,
    private readonly settings: AccessSettings,
    /** The configured databases, which grants open. */
    private readonly databases: readonly Database[],
    /** Per database, the logins `tally policy apply` made, where the start-up check found them. */
    private readonly views: ReadonlyMap<string, ProfileDatabases> = new Map(),
  ) {
    requirePseudonymSecret(policy, settings);
  }

  /** Who the console, `ask` and `eval` run as (TALLY_CONSOLE_USER). */
  get consoleUser(): string {
    return this.settings.consoleUser;
  }

  resolve(principal: Principal): Access {
    return resolveAccess(this.policy, principal);
  }

  forMessage(
    inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>,
    used: UsedGrants | undefined,
    onUsed: (used: UsedGrants) => Promise<void>,
  ): MessageAccess {
    const access = this.resolve(principalOf(inbound, this.consoleUser));
    const missing = missingGrants(used, access);
    if (missing.length > 0) return { refusal: startYourOwnThreadText(missing), missing };
    if (access.databases.size === 0 && Object.keys(used ?? {}).length === 0) {
      return { refusal: nothingGrantedText(access), missing: [] };
    }
    const widened: UsedGrants = structuredClone(used ?? {});
    const onRead = async (reads: TableRead[]) => {
      recordReads(widened, reads);
      await onUsed(structuredClone(widened));
    };
    const reader = { mayRead: (grants: UsedGrants) => missingGrants(grants, access).length === 0 };
    return { databases: this.databasesFor(access, onRead), reader };
  }

  /** The daily budgets the policy's `budgets` give the sender (the largest of each), if any applies. */
  budgetFor(
    inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>,
  ): { tokensPerDay?: number; kernelMinutesPerDay?: number } | undefined {
    const principal = principalOf(inbound, this.consoleUser);
    const rules = this.policy.budgets.filter((rule) =>
      rule.to.some((name) => {
        const set = this.policy.principals[name];
        return set !== undefined && setMatches(set, principal).length > 0;
      }),
    );
    if (rules.length === 0) return undefined;
    const largest = (values: Array<number | undefined>) => {
      const given = values.filter((value): value is number => value !== undefined);
      return given.length > 0 ? Math.max(...given) : undefined;
    };
    const tokensPerDay = largest(rules.map((rule) => rule.tokens_per_day));
    const kernelMinutesPerDay = largest(rules.map((rule) => rule.kernel_minutes_per_day));
    return {
      ...(tokensPerDay === undefined ? {} : { tokensPerDay }),
      ...(kernelMinutesPerDay === undefined ? {} : { kernelMinutesPerDay }),
    };
  }

  mayView(viewer: Viewer, used: UsedGrants | undefined): boolean {
    return missingGrants(used, this.resolve(viewerPrincipal(viewer, this.consoleUser))).length === 0;
  }

  databaseNames(viewer: Viewer): string[] {
    return [...this.resolve(viewerPrincipal(viewer, this.consoleUser)).databases.keys()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.views.values()].map((views) => views.close()));
  }

  /** The databases `access` may read, each enforcing it; `onRead` hears of every table a statement read. */
  private databasesFor(access: Access, onRead: (reads: TableRead[]) => Promise<void>): Database[] {
    return this.databases.flatMap((database) => {
      const granted = access.databases.get(database.name);
      if (!granted) return [];
      const key = pseudonymKey(this.settings.pseudonymSecret ?? '', database.name);
      const views = this.views.get(database.name);
      return [policedDatabase(database, { access: granted, pseudonymKey: key, onRead, ...(views ? { views } : {}) })];
    });
  }
}

/** A policy that pseudonymises needs the secret behind the pseudonyms (TALLY_PSEUDONYM_KEY). */
export function requirePseudonymSecret(policy: Policy, settings: AccessSettings): void {
  const hashes = Object.values(policy.databases).some((database) => Object.values(database.sensitive).includes('hash'));
  if (!hashes || settings.pseudonymSecret) return;
  throw new ConfigError([
    {
      variable: 'TALLY_PSEUDONYM_KEY',
      message:
        'the access policy pseudonymises columns (hash): set a secret of at least 16 characters, the same on every replica',
    },
  ]);
}

/**
 * The principal of a message: its platform from the thread key, the place the adapter saw; on the console (and
 * `ask`, `eval`) the configured console user, whoever the thread's messages say.
 */
export function principalOf(inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>, consoleUser: string): Principal {
  const [platform = 'console', team = '', channel = ''] = inbound.threadKey.split(':');
  const kind = platform === 'slack' || platform === 'discord' ? platform : 'console';
  return {
    platform: kind,
    userId: kind === 'console' ? consoleUser : inbound.user.id,
    groups: inbound.user.groups ?? [],
    place: inbound.place ?? { channel: kind === 'console' ? 'console' : channel, dm: kind === 'console' },
    ...(kind === 'discord' ? { guild: team } : {}),
  };
}

function viewerPrincipal(viewer: Viewer, consoleUser: string): Principal {
  return principalOf({ threadKey: viewer.channel, user: viewer.user, place: viewer.place }, consoleUser);
}

/** What the thread is told when the person may read nothing here. */
function nothingGrantedText(access: Access): string {
  const hidden = [...access.hidden.values()];
  return hidden.length > 0
    ? `${NOT_GRANTED_TEXT}: nothing you may read can be shown here (${hidden.join('; ')}). Ask in one of those channels, or in a direct message.`
    : `${NOT_GRANTED_TEXT}: it grants you no data here, so I cannot look anything up for you. Ask the people who run tally for access.`;
}

/** What a person lacking the thread's grants is told; nothing runs. */
function startYourOwnThreadText(missing: readonly string[]): string {
  return `${NOT_GRANTED_TEXT}: this thread has read data you may not read (${missing.join(', ')}), so I will not work on it for you. Start your own thread and ask there.`;
}
