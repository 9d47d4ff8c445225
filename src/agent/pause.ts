/** Why a turn stops and waits for a person, and what it waits for: an answer, a review decision or an approval. */
export type Pause =
  /**
   * ask_user or triage: the answer becomes the call's result; `multiStep` (triage): what the request follows is
   * given after the answer.
   */
  | { kind: 'question'; text: string; choices?: string[]; multiStep?: true }
  /** draft_section: the review decision becomes the call's result. */
  | { kind: 'review'; section: string; version: number }
  /** A cell held for approval: Run / Edit / Skip decides what runs. */
  | {
      kind: 'approval';
      tool: string;
      arguments: string;
      language: 'python' | 'sql';
      code: string;
      reason: string;
    };
