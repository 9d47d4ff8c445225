/**
 * What a thread's log holds (sessions/session-log.ts appends it): every message, post, tool call, cell, edit,
 * decision, report version and figure check. Defined here, below the sessions, because a turn writes it too.
 */
export type LogEvent =
  /** A person's message, or their click on a control. */
  | { kind: 'message'; user: string; text: string; action?: { id: string; value: string } }
  /** What tally posted (text of text, question, error and code posts; charts and files by title). */
  | { kind: 'post'; post: string; text: string }
  /** A request the agent took up (after triage and any clarification). */
  | { kind: 'request'; text: string }
  | { kind: 'tool_call'; callId: string; tool: string; arguments: string; result: string; failed: boolean }
  | { kind: 'cell'; language: 'python' | 'sql'; code: string; author: 'model' | 'human'; ok: boolean }
  /** A person replaced a proposed cell before it ran. */
  | { kind: 'edit'; user: string; original: string; edited: string }
  | { kind: 'approval'; user: string; decision: 'run' | 'edit' | 'skip'; code: string }
  | { kind: 'decision'; user: string; section: string; version: number; action: string; feedback?: string }
  | { kind: 'report_version'; section: string; version: number; title: string; narrative: string }
  /**
   * The figures of an answer or a section draft, checked against the thread's results: `noted` went
   * back to the model to redo, `posted` was posted (its ungrounded figures marked).
   */
  | {
      kind: 'grounding';
      what: 'answer' | 'section';
      outcome: 'noted' | 'posted';
      figures: number;
      grounded: number;
      ungrounded: string[];
    };

export type LogEntry = LogEvent & { at: number };

/** The tool calls of a log that did work: triage only decides what a turn does, so it is not counted. */
export function workCalls(log: readonly LogEntry[]): Array<Extract<LogEntry, { kind: 'tool_call' }>> {
  return log.filter(
    (entry): entry is Extract<LogEntry, { kind: 'tool_call' }> => entry.kind === 'tool_call' && entry.tool !== 'triage',
  );
}
