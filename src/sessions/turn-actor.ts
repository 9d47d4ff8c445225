import type { AuditActor } from '../ports/audit.js';
import type { Inbound } from '../ports/chat.js';

/** Who a turn works for, as the audit records it and budgets charge: on the console, `ask` and `eval`, its user. */
export function actorOf(inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>, consoleUser = 'console'): AuditActor {
  const platform = inbound.threadKey.split(':', 1)[0] ?? 'unknown';
  return {
    user: platform === 'slack' || platform === 'discord' ? inbound.user.id : consoleUser,
    platform,
    thread: inbound.threadKey,
    ...(inbound.place ? { channel: inbound.place.channel } : {}),
  };
}
