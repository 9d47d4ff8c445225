/**
 * What a Slack streamed message is sent, as chunks of `chat.startStream` / `appendStream` /
 * `stopStream`: the plan's title (`plan_update`), a task card per plan step and per tool call
 * (`task_update`), and the turn's text (`markdown_text`). Cards are computed from a turn's progress
 * snapshots as the difference from what was already sent, so a call carries only what changed;
 * chunks waiting for the next call are compacted (a card keeps every status it went through, once)
 * and grouped into calls under Slack's markdown limit. Pure: no I/O.
 */
import type { ProgressTask, TaskStatus, TurnProgress } from '../../src/ports/chat.js';

/** The chunks tally sends (shapes of `@slack/types` `chunk.d.ts`). */
export type StreamChunk =
  | { type: 'markdown_text'; text: string }
  | { type: 'plan_update'; title: string }
  | { type: 'task_update'; id: string; title: string; status: TaskStatus; details?: string; output?: string };

type TaskChunk = Extract<StreamChunk, { type: 'task_update' }>;

/** Markdown per call: Slack takes at most 12,000 characters of `markdown_text`. */
export const MARKDOWN_LIMIT = 12_000;
/** A card's title, details and output are cut to this (Slack's documented field size). */
const FIELD_LIMIT = 256;
/** The plan block's title. */
export const PLAN_TITLE = 'Plan';

/** What a streamed message has been sent of a turn's progress: each card as last sent. */
export interface SentProgress {
  planTitle?: string;
  cards: Map<string, Omit<TaskChunk, 'type' | 'id'>>;
}

export const nothingSent = (): SentProgress => ({ cards: new Map() });

const cut = (text: string) => (text.length > FIELD_LIMIT ? `${text.slice(0, FIELD_LIMIT - 1)}…` : text);

/** The card id of plan step `index` (0-based): `step-1`, `step-2`, … */
export const stepId = (index: number) => `step-${index + 1}`;

const count = (rows: number) => rows.toLocaleString('en-US');

/** A tool call's title as it stands: an extraction in progress says how many rows arrived. */
export function liveTitle(task: ProgressTask): string {
  if (task.status !== 'in_progress' || !task.rows) return task.title;
  const { received, expected } = task.rows;
  const so =
    expected === undefined ? `${count(received)} rows so far` : `${count(received)} of ${count(expected)} rows`;
  return `${task.title} (${so})`;
}

/** Every card of a progress snapshot as it should look now: plan steps first, then tool calls. */
export function cardsOf(progress: TurnProgress): TaskChunk[] {
  const steps = progress.plan.map(
    (step, index): TaskChunk => ({
      type: 'task_update',
      id: stepId(index),
      title: cut(step.title),
      status: step.status,
    }),
  );
  const tasks = progress.tasks.map(
    (task): TaskChunk => ({
      type: 'task_update',
      id: task.id,
      title: cut(liveTitle(task)),
      status: task.status,
      ...(task.details ? { details: cut(task.details) } : {}),
      ...(task.output ? { output: cut(task.output) } : {}),
    }),
  );
  return [...steps, ...tasks];
}

/**
 * The chunks that bring a streamed message from `sent` to `progress`, and records them as sent.
 * A card is sent when it is new or its title, status or output changed; its details (the code, which
 * Slack appends rather than replaces) only when they are new.
 */
export function progressChunks(sent: SentProgress, progress: TurnProgress): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  if (progress.plan.length > 0 && sent.planTitle !== PLAN_TITLE) {
    chunks.push({ type: 'plan_update', title: PLAN_TITLE });
    sent.planTitle = PLAN_TITLE;
  }
  for (const card of cardsOf(progress)) {
    const before = sent.cards.get(card.id);
    const changed =
      !before || before.title !== card.title || before.status !== card.status || before.output !== card.output;
    if (!changed && before?.details === card.details) continue;
    const { details, output, ...rest } = card;
    const chunk: TaskChunk = {
      ...rest,
      ...(details !== undefined && details !== before?.details ? { details } : {}),
      ...(output !== undefined ? { output } : {}),
    };
    chunks.push(chunk);
    sent.cards.set(card.id, {
      title: card.title,
      status: card.status,
      ...(details !== undefined ? { details } : {}),
      ...(output !== undefined ? { output } : {}),
    });
  }
  return chunks;
}

/** Markdown as chunks of at most `limit` characters, cut after a line break where one is near. */
export function markdownChunks(markdown: string, limit = MARKDOWN_LIMIT): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  let rest = markdown;
  while (rest.length > limit) {
    const newline = rest.lastIndexOf('\n', limit - 1);
    const at = newline > limit / 2 ? newline + 1 : limit;
    chunks.push({ type: 'markdown_text', text: rest.slice(0, at) });
    rest = rest.slice(at);
  }
  if (rest !== '') chunks.push({ type: 'markdown_text', text: rest });
  return chunks;
}

/**
 * Chunks waiting for one call, made smaller without losing a step: consecutive updates of a card
 * with the same status become one (the later fields win, details kept), so a card that went
 * pending → in_progress → complete between two calls still shows each status once, in order.
 * Repeated plan titles keep the last.
 */
export function compactChunks(chunks: StreamChunk[]): StreamChunk[] {
  const out: StreamChunk[] = [];
  const lastCard = new Map<string, number>();
  for (const chunk of chunks) {
    if (chunk.type === 'task_update') {
      const index = lastCard.get(chunk.id);
      const previous = index === undefined ? undefined : out[index];
      if (index !== undefined && previous?.type === 'task_update' && previous.status === chunk.status) {
        out[index] = { ...previous, ...chunk };
        continue;
      }
      lastCard.set(chunk.id, out.length);
    }
    if (chunk.type === 'plan_update') {
      const index = out.findIndex((candidate) => candidate.type === 'plan_update');
      if (index >= 0) {
        out[index] = chunk;
        continue;
      }
    }
    out.push(chunk);
  }
  return out;
}

/** Chunks grouped into calls, each with at most `limit` characters of markdown. */
export function callBatches(chunks: StreamChunk[], limit = MARKDOWN_LIMIT): StreamChunk[][] {
  const batches: StreamChunk[][] = [];
  let batch: StreamChunk[] = [];
  let markdown = 0;
  for (const chunk of chunks) {
    const size = chunk.type === 'markdown_text' ? chunk.text.length : 0;
    if (batch.length > 0 && markdown + size > limit) {
      batches.push(batch);
      batch = [];
      markdown = 0;
    }
    batch.push(chunk);
    markdown += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
