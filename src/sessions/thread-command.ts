/**
 * The thread's own commands, from a button (`Inbound.action`) or typed in the thread: review
 * decisions (`accept`, `revise: <feedback>`, `discard`, optionally naming a section: `accept s2`),
 * approval decisions (`run`, `skip`, `edit` with a code block), `report` (export it),
 * `save as playbook` and `reset` (a fresh kernel). Works the same on every platform; the console has only the typed form.
 */
import { ACTION_IDS, type Inbound } from '../ports/chat.js';
import type { ReviewAction } from '../report/report.js';
import { findUserCode } from './user-code.js';

export type ThreadCommand =
  | { kind: 'review'; action: ReviewAction; section?: string; version?: number; feedback?: string }
  | { kind: 'approval'; decision: 'run' | 'skip' | 'edit'; code?: string; note?: string }
  | { kind: 'export' }
  | { kind: 'save-playbook'; title?: string }
  | { kind: 'reset' };

const REVIEW = /^\s*(accept|revise|discard)\b(?:\s+(s\d+|query|playbook)\b)?\s*(?:[:\-–—]\s*)?([\s\S]*)$/i;
const APPROVAL = /^\s*(run|skip|edit)\b\s*(?:[:\-–—]\s*)?([\s\S]*)$/i;
const RESET = /^\s*\/?reset(?:\s+the)?(?:\s+kernel)?\s*[.!]?\s*$/i;
const EXPORT = /^\s*\/?(?:export(?:\s+the)?\s+report|report|export)\s*[.!]?\s*$/i;
const SAVE_PLAYBOOK = /^\s*save\s+(?:it\s+|this\s+|the\s+report\s+)?as\s+(?:a\s+)?playbook\b\s*(?:[:\-–—]\s*(.+))?$/i;

/** `s1@2` → section s1, version 2. */
export function parseReviewValue(value: string): { section?: string; version?: number } {
  const [section, version] = value.split('@');
  return {
    ...(section ? { section } : {}),
    ...(version && /^\d+$/.test(version) ? { version: Number(version) } : {}),
  };
}

export function parseThreadCommand(inbound: Inbound): ThreadCommand | undefined {
  const action = inbound.action;
  if (action) {
    const review = (['accept', 'revise', 'discard'] as const).find((name) => ACTION_IDS[name] === action.id);
    if (review) {
      const feedback = inbound.text.trim();
      return { kind: 'review', action: review, ...parseReviewValue(action.value), ...(feedback ? { feedback } : {}) };
    }
    const decision = (['run', 'skip', 'edit'] as const).find((name) => ACTION_IDS[name] === action.id);
    if (decision) {
      const code = decision === 'edit' ? (findUserCode(inbound.text)?.code ?? inbound.text.trim()) : undefined;
      return { kind: 'approval', decision, ...(code ? { code } : {}) };
    }
    return undefined; // a choice answers a question as text
  }
  const text = inbound.text;
  if (EXPORT.test(text)) return { kind: 'export' };
  if (RESET.test(text)) return { kind: 'reset' };
  const save = SAVE_PLAYBOOK.exec(text);
  if (save) return { kind: 'save-playbook', ...(save[1]?.trim() ? { title: save[1].trim() } : {}) };
  const review = REVIEW.exec(text);
  if (review?.[1]) {
    const verb = review[1].toLowerCase() as ReviewAction;
    const rest = (review[3] ?? '').trim().replace(/^[.!]+$/, '');
    // "accept" and "discard" take nothing after them; "accept the offer …" is an ordinary message.
    if (verb !== 'revise' && rest !== '') return undefined;
    return {
      kind: 'review',
      action: verb,
      ...(review[2] ? { section: review[2].toLowerCase() } : {}),
      ...(rest ? { feedback: rest } : {}),
    };
  }
  const approval = APPROVAL.exec(text);
  if (approval?.[1]) {
    const decision = approval[1].toLowerCase() as 'run' | 'skip' | 'edit';
    const rest = (approval[2] ?? '').trim();
    if (decision === 'edit') {
      const code = findUserCode(rest)?.code;
      return code ? { kind: 'approval', decision, code } : undefined;
    }
    if (decision === 'run' && rest !== '') return undefined;
    return { kind: 'approval', decision, ...(rest ? { note: rest } : {}) };
  }
  return undefined;
}
