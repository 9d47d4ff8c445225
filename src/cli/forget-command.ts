/**
 * `tally forget --user U` / `tally forget --thread T`: deletion on request, from the store, TALLY_HOME
 * and the playbooks folder (see forget.ts). Prints what went; the audit keeps that it happened.
 */
import { StoredAuditTrail } from '../audit/audit-trail.js';
import { loadConfig } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import { SYSTEM_CLOCK } from '../ports/clock.js';
import { forgetThread, forgetUser } from '../retention/forget.js';
import { storeOf } from '../store/create-store.js';
import { commandUsage } from './cli-usage.js';

/** `--user U` or `--thread T` (also `--user=U`), or what is wrong. */
export function parseForgetFlags(
  words: readonly string[],
): { scope: 'user' | 'thread'; target: string } | { problem: string } {
  const [first = '', second] = words;
  const [flag, inline] = first.includes('=') ? first.split(/=(.*)/s, 2) : [first, undefined];
  const target = inline ?? second;
  const expected = inline === undefined ? 2 : 1;
  if ((flag === '--user' || flag === '--thread') && target && !target.startsWith('--') && words.length === expected) {
    return { scope: flag === '--user' ? 'user' : 'thread', target };
  }
  return { problem: 'needs exactly one of --user ID or --thread THREAD_KEY' };
}

export async function forgetCommand(words: string[], print: (line: string) => void): Promise<number> {
  const flags = parseForgetFlags(words);
  if ('problem' in flags) {
    process.stderr.write(`tally forget: ${flags.problem}\n${commandUsage('forget')}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const store = await storeOf(config, logger);
  try {
    const audit = new StoredAuditTrail({ log: store.auditLog(), clock: SYSTEM_CLOCK });
    const options = { store, audit, requestedBy: config.access.consoleUser };
    const counts =
      flags.scope === 'user' ? await forgetUser(flags.target, options) : await forgetThread(flags.target, options);
    await store.reclaim();
    print(
      `forgot ${flags.scope} ${flags.target}: ${counts.threads} threads, ${counts.messages} messages in others' threads, ` +
        `${counts.entries} store entries, ${counts.playbooks} saved playbooks; ${counts.trainingExports} training exports written again`,
    );
    print('running services drop the kernels they hold for these threads within 15 s; the audit records the deletion');
    return 0;
  } finally {
    await store.close();
  }
}
