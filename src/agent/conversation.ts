/** What the agent remembers of a thread between turns; stored with the session. */
import type { TaskStatus } from '../ports/chat.js';
import type { ChatMessage } from '../ports/llm.js';
import type { Cell, Figure } from '../report/report.js';
import type { EvidenceSource } from './grounding/ground-figures.js';
import type { Pause } from './pause.js';
import type { SharedFileProfile } from './shared-file-profile.js';

export type PendingQuestion =
  /**
   * The model called ask_user, or triage found the request ambiguous: the answer becomes that call's tool result
   * (`multiStep`: then the request's playbook and plan follow).
   */
  | { kind: 'tool'; callId: string; text: string; choices?: string[]; multiStep?: true }
  /** Triage asked, in a thread saved before triage moved into the act loop: the answer is added to the request. */
  | { kind: 'triage'; request: string; text: string; choices?: string[]; multiStep?: boolean }
  /** A drafted section awaits review: the decision becomes the draft_section call's result. */
  | ({ callId: string } & Extract<Pause, { kind: 'review' }>)
  /** A cell awaits approval: Run / Edit / Skip decides what runs, and its outcome is the call's result. */
  | ({ callId: string } & Extract<Pause, { kind: 'approval' }>);

export interface Conversation {
  /** The working history (user, assistant and tool messages), without the system prompt. */
  messages: ChatMessage[];
  pending?: PendingQuestion;
  /** The playbook (file name) the current request follows, kept while a question is pending. */
  playbook?: string;
  /** The request being worked on (after triage and any clarification); sections record it. */
  request?: string;
  /** Cells and charts since the last section draft: the work behind the next section. */
  work: { cells: Cell[]; figures: Figure[] };
  /**
   * Set while the agent's loop works on a request (saved after every tool call), with the plan it
   * follows: a turn interrupted by a crash or a shutdown goes on from here instead of starting over.
   */
  inTurn?: { plan: string };
  /** The plan of the current request and how far it got, kept across pauses (review, questions). */
  plan?: { text: string; steps: Array<{ title: string; status: TaskStatus }> };
  /** The numbers of the thread's tool results: what its figures are checked against. */
  evidence?: EvidenceSource[];
  /** Numbers people wrote (requests, answers, feedback): not figures to check. */
  given?: number[];
  /** Numbers of the code and SQL that ran: a figure stating one that no result holds is a parameter. */
  parameters?: number[];
  /** The files shared in the thread, as profiled when they arrived: listed in the prompts beside the tables. */
  files?: SharedFileProfile[];
  /** The model was told about ungrounded figures and is redoing its text: what it hands in next is posted. */
  figuresNoted?: true;
}

export const emptyConversation = (): Conversation => ({ messages: [], work: { cells: [], figures: [] } });

/** A reply to a question with choices may be the choice's number. */
export function answerText(pending: { choices?: string[] }, reply: string): string {
  const index = Number(reply.trim()) - 1;
  const choice = Number.isInteger(index) ? pending.choices?.[index] : undefined;
  return choice ?? reply;
}
