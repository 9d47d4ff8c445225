/**
 * A turn's working loop: ask the model, run the tools it calls, feed the results back, until it
 * answers or a stop condition holds. The model's mistakes (unknown tool, bad arguments, failing code,
 * rejected SQL) go back to it as tool results; only broken infrastructure throws.
 */
import type { ChatMessage, CompletionParams, LlmClient, ToolCall, ToolSpec } from '../ports/llm.js';
import { NO_TRACING, type Tracing } from '../ports/tracing.js';
import type { Pause } from './pause.js';
import { firstStop, type LoopState, type StopCondition, type StopReason } from './stop-conditions.js';
import type { AgentTool, ToolContext, ToolOutcome } from './tool.js';
import { parseToolArguments, toolSpec } from './tool-schema.js';
import { tracedToolCall } from './traced-tool-call.js';

export interface ToolLoopOptions {
  llm: LlmClient;
  system: string;
  /** The conversation so far (user, assistant and tool messages); the loop appends to it. */
  messages: ChatMessage[];
  tools: AgentTool[];
  context: ToolContext;
  params: CompletionParams;
  stopWhen: StopCondition[];
  /** Told about the calls of each model reply before any of them runs. */
  onToolCalls?: (calls: ToolCall[]) => Promise<void> | void;
  /** Told before every tool call (status lines). */
  beforeToolCall?: (call: ToolCall) => Promise<void> | void;
  /** Told about every tool call and its outcome (logging). */
  onToolCall?: (call: ToolCall, outcome: ToolOutcome) => Promise<void> | void;
  /** Saves the conversation after every model reply and tool result, so an interrupted turn can go on. */
  checkpoint?: () => Promise<void>;
  /**
   * Looks at the model's answer before the turn ends: the text to post, or a note the model reads
   * (as the user's next message) before it answers again.
   */
  reviewAnswer?: (text: string) => Promise<{ redo: string } | { text: string }>;
  /** Each tool call runs in a span of its own, so its SQL and cells nest under it. Default: none. */
  tracing?: Tracing;
}

export type ToolLoopResult =
  | { reason: 'answered'; text: string; state: LoopState }
  /** A tool paused the turn (question, review, approval); its call is answered when the turn resumes. */
  | { reason: 'asked'; pause: Pause; callId: string; state: LoopState }
  /** A tool ended the turn without an answer of the model's (triage: the data cannot answer the request). */
  | { reason: 'ended'; end: NonNullable<ToolOutcome['end']>; state: LoopState }
  | { reason: Exclude<StopReason, 'asked'>; state: LoopState; failures: string[] };

/** Tools whose failures count towards the repair limit. */
const REPAIRABLE = new Set(['run_python', 'run_sql', 'load_dataframe']);

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const { llm, messages, context } = options;
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const specs = toolSpecs(options.tools);
  const state: LoopState = {
    steps: 0,
    tokens: 0,
    startedAt: Date.now(),
    consecutiveFailures: 0,
    asked: false,
    lastTools: [],
  };
  const failures: string[] = [];
  let paused: { pause: Pause; callId: string } | undefined;
  let ended: ToolOutcome['end'];
  let reason: StopReason | undefined;
  do {
    const completion = await llm.complete({
      messages: [{ role: 'system', content: options.system }, ...messages],
      tools: specs,
      params: options.params,
      signal: context.signal,
    });
    state.steps += 1;
    state.tokens += completion.usage.promptTokens + completion.usage.completionTokens;
    messages.push(completion.message);
    await options.checkpoint?.();
    if (completion.toolCalls.length === 0) {
      const text = completion.message.content ?? '';
      const reviewed = options.reviewAnswer ? await options.reviewAnswer(text) : { text };
      if ('text' in reviewed) return { reason: 'answered', text: reviewed.text, state };
      messages.push({ role: 'user', content: reviewed.redo });
      await options.checkpoint?.();
      reason = firstStop(options.stopWhen, state);
      continue;
    }
    state.lastTools = completion.toolCalls.map((call) => call.name);
    await options.onToolCalls?.(completion.toolCalls);
    const following: string[] = [];
    for (const call of completion.toolCalls) {
      await options.beforeToolCall?.(call);
      const outcome = await tracedToolCall(options.tracing ?? NO_TRACING, call, () => runCall(byName, call, context));
      await options.onToolCall?.(call, outcome);
      if (outcome.pause && !paused) {
        paused = { pause: outcome.pause, callId: call.id };
        state.asked = true;
        continue; // its tool result is the person's answer or decision, added when the turn resumes
      }
      ended ??= outcome.end;
      following.push(...(outcome.messages ?? []));
      messages.push({ role: 'tool', toolCallId: call.id, content: outcome.content });
      await options.checkpoint?.();
      if (REPAIRABLE.has(call.name)) {
        if (outcome.failed) {
          state.consecutiveFailures += 1;
          failures.push(outcome.content);
        } else {
          state.consecutiveFailures = 0;
          failures.length = 0;
        }
      }
    }
    // After every call of the reply has its result (a user message may not come between them; a paused call's
    // result comes when the turn resumes, so then they are left out).
    if (following.length > 0 && !paused) {
      for (const content of following) messages.push({ role: 'user', content });
      await options.checkpoint?.();
    }
    if (ended && !paused) return { reason: 'ended', end: ended, state };
    reason = firstStop(options.stopWhen, state);
  } while (reason === undefined);
  if (reason === 'asked' && paused) return { reason: 'asked', ...paused, state };
  return { reason: reason === 'asked' ? 'step_limit' : reason, state, failures };
}

/**
 * The tools as sent to the model. Each takes an optional `plan_step` (the progress shows the step); it is there
 * whether or not the turn has a plan, so the tool list is the same on every request of a thread (the prompt
 * cache reuses only an identical prefix, and the tools come first).
 */
export function toolSpecs(tools: readonly AgentTool[]): ToolSpec[] {
  return tools.map((tool) => {
    const spec = toolSpec(tool.name, tool.description, tool.schema);
    return tool.name === 'triage' ? spec : withPlanStep(spec);
  });
}

function withPlanStep(spec: ToolSpec): ToolSpec {
  const parameters = spec.parameters as { properties?: Record<string, unknown> };
  return {
    ...spec,
    parameters: {
      ...spec.parameters,
      properties: {
        ...parameters.properties,
        // What it means is said once, with the plan (turn-message.ts), rather than in every tool.
        plan_step: { type: 'integer' },
      },
    },
  };
}

async function runCall(byName: Map<string, AgentTool>, call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
  const tool = byName.get(call.name);
  if (!tool) {
    return { content: `There is no tool named '${call.name}'. Tools: ${[...byName.keys()].join(', ')}.` };
  }
  const parsed = parseToolArguments(tool.schema, call.arguments, tool.name);
  if (!parsed.ok) return { content: parsed.message };
  return tool.execute(parsed.value, context);
}
