/**
 * What a turn is given: the sender's message and what they may read, the thread's conversation and settings, the
 * ways to reach the kernel, the thread and its log, and how a paused turn resumes.
 */
import type { Reader } from '../ports/access.js';
import type { Post } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import type { ApprovalDecision, ApprovalMode } from './approval.js';
import type { Conversation } from './conversation.js';
import type { Offer } from './derived-offer.js';
import type { LogEvent } from './log-event.js';
import type { AgentSettings } from './settings.js';
import type { ToolContext, Workbench } from './tool.js';

export interface TurnRequest {
  text: string;
  /** Who sent the message (the turn's progress is addressed to them). */
  userId: string;
  /** The databases this turn may read (the sender's, under the access policy); default the agent's. */
  databases?: Database[];
  /**
   * What the sender may read here, under the access policy: what is derived from data (a saved playbook, a
   * verified query, knowledge) reaches the turn only when they hold all its thread read. Absent: no policy.
   */
  reader?: Reader;
  /**
   * Told of each playbook, verified query or derived knowledge piece put before the model in this turn (to record
   * it, and so the thread holds the grants of what it was given).
   */
  onOffered?: (offer: Offer) => Promise<void>;
  conversation: Conversation;
  /** The thread's settings, with `approve` resolved (the thread's, or its channel's default). */
  settings: AgentSettings & { approve: ApprovalMode };
  kernel: () => Promise<Kernel>;
  emit: (post: Post) => Promise<void>;
  record: ToolContext['record'];
  work: Workbench;
  log: (event: LogEvent) => Promise<void>;
  /**
   * How a paused turn resumes: the review decision as the call's result, or the approval decision;
   * `continue` goes on with a turn that was interrupted (tally restarted) from its last checkpoint.
   */
  resume?: Resume;
  /** Saves the conversation as it stands; called after every model reply and tool result. */
  checkpoint?: () => Promise<void>;
  signal: AbortSignal;
}

export type Resume =
  | { kind: 'review'; result: string }
  | ({ kind: 'approval' } & ApprovalDecision)
  | { kind: 'continue' };
