/**
 * What a thread's derived things record of it (the thread and what it read), and the audit records of publishing
 * one and of offering one to a person (DESIGN §9).
 */

import { grantedTables } from '../agent/derived-access.js';
import type { Offer } from '../agent/derived-offer.js';
import type { Derivation } from '../ports/access.js';
import type { AuditEvent } from '../ports/audit.js';
import type { ThreadContext } from './thread-context.js';

/**
 * What something saved from this thread now records. Under a policy the thread's reads are tracked, so they are
 * known (none read: `{}`); with no policy they are not, and the derivation says so by leaving them out.
 */
export function derivationOf(thread: ThreadContext): Derivation {
  const { session, inbound } = thread;
  return { thread: inbound.threadKey, ...(thread.reader ? { grantsUsed: session.grantsUsed ?? {} } : {}) };
}

/** The audit record of publishing a playbook or a verified query saved at `file`. */
export function publishedEvent(
  kind: 'playbook' | 'verified-query',
  name: string,
  file: string,
  derivation: Derivation,
): AuditEvent {
  return { kind: 'publish', decision: 'allowed', file, ...described(kind, name, derivation) };
}

/** The audit record of an offer to the person a turn works for. */
export function offeredEvent(offer: Offer): AuditEvent {
  return {
    kind: 'offer',
    decision: 'allowed',
    file: offer.source,
    ...described(offer.kind, offer.name, offer.derivedFrom),
  };
}

function described(kind: Offer['kind'], name: string, derivation: Derivation | undefined): Partial<AuditEvent> {
  return {
    derived: {
      kind,
      name,
      ...(derivation ? { thread: derivation.thread ?? 'not known' } : {}),
      grantsKnown: derivation === undefined || derivation.grantsUsed !== undefined,
    },
    ...(derivation?.grantsUsed ? { tables: grantedTables(derivation.grantsUsed) } : {}),
  };
}
