/**
 * Requests and the playbook each should follow: the retrieval test set (BM25 and hybrid), kept with
 * the calibration set in src/eval/playbook-choice.ts.
 */
import { PLAYBOOK_REQUESTS } from '../../src/eval/playbook-choice.js';

export { PLAYBOOK_REQUESTS };

/**
 * Requests that name nothing a shipped playbook is about (its `about` front matter): BM25 follows
 * none for them, as measured in the header of src/agent/playbook-ranking.ts.
 */
export const SUBJECTLESS_REQUESTS: readonly string[] = [
  'Find duplicate or missing rows',
  'Give me an overview of the data',
];

/** The requests BM25 alone follows to their playbook. */
export const NAMED_REQUESTS = PLAYBOOK_REQUESTS.filter(([request]) => !SUBJECTLESS_REQUESTS.includes(request));
