/**
 * What a turn's span says about its message: the thread, the platform and the sender's id, whether it goes on
 * after an interruption, the button clicked and how many files came with it. Never the message's text.
 */
import type { AuditActor } from '../ports/audit.js';
import type { Inbound } from '../ports/chat.js';
import type { SpanAttributes } from '../ports/tracing.js';

export function turnAttributes(inbound: Inbound, actor: AuditActor, interrupted: boolean): SpanAttributes {
  return {
    'gen_ai.conversation.id': inbound.threadKey,
    'tally.platform': actor.platform,
    'tally.user.id': actor.user,
    'tally.turn.interrupted': interrupted,
    'tally.message.action': inbound.action?.id,
    'tally.message.files': inbound.files?.length,
  };
}
