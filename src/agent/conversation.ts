/** What the agent remembers of a thread between turns; stored with the session. */
import type { ChatMessage } from '../ports/llm.js';

export type PendingQuestion =
  /** The model called ask_user: the answer becomes that call's tool result. */
  | { kind: 'tool'; callId: string; text: string; choices?: string[] }
  /** Triage found the request ambiguous: the answer is added to the original request. */
  | { kind: 'triage'; request: string; text: string; choices?: string[] };

export interface Conversation {
  /** The working history (user, assistant and tool messages), without the system prompt. */
  messages: ChatMessage[];
  pending?: PendingQuestion;
  /** The playbook (file name) the current request follows, kept while a question is pending. */
  playbook?: string;
  drafts: Array<{ title: string; markdown: string }>;
}

export const emptyConversation = (): Conversation => ({ messages: [], drafts: [] });

/** A reply to a question with choices may be the choice's number. */
export function answerText(pending: PendingQuestion, reply: string): string {
  const index = Number(reply.trim()) - 1;
  const choice = Number.isInteger(index) ? pending.choices?.[index] : undefined;
  return choice ?? reply;
}
