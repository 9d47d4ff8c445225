/**
 * Who spent what: every model request made while a case's thread works is counted to that case
 * (tokens, requests, time waiting), and a case over its token budget is refused further requests.
 * Cases run in parallel through one tally, so the case is found from the async context the harness
 * runs it in (AsyncLocalStorage follows the turn through the router, the agent and its tools).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { EvalBudgetError } from '../base/errors.js';
import type { Completion, CompletionRequest, LlmClient } from '../ports/llm.js';
import { repeatedShare, requestText } from './prompt-prefix.js';

export interface CaseUsage {
  tokens: CaseTokens;
  modelCalls: number;
  modelMs: number;
  /** Requests refused because the budget was spent. */
  refused: number;
}

/** A case's tokens; the prefix figures are counted from the bytes sent, `cached` is what the provider said. */
export interface CaseTokens {
  prompt: number;
  completion: number;
  /** Prompt tokens the provider served from its prompt cache; absent when it never said. */
  cached?: number;
  /** Prompt tokens of every request after the case's first. */
  afterFirst?: number;
  /** The part of `afterFirst` in a prefix an earlier request of the case sent (what a cache can reuse). */
  repeated?: number;
}

interface CaseAccount extends CaseUsage {
  tokenBudget: number;
  /** What the case's requests sent, as text in the provider's order. */
  sent: string[];
}

export class CaseAccounting {
  private readonly current = new AsyncLocalStorage<CaseAccount>();

  /** Runs `work` as one case: its model requests count to the usage returned with the result. */
  async run<T>(tokenBudget: number, work: () => Promise<T>): Promise<{ value: T; usage: CaseUsage }> {
    const account: CaseAccount = {
      tokens: { prompt: 0, completion: 0, afterFirst: 0, repeated: 0 },
      modelCalls: 0,
      modelMs: 0,
      refused: 0,
      tokenBudget,
      sent: [],
    };
    const value = await this.current.run(account, work);
    const { tokenBudget: _, sent: __, ...usage } = account;
    return { value, usage };
  }

  /** The model client the cases' threads use: it counts and enforces per case. */
  measure(llm: LlmClient): LlmClient {
    const embed = llm.embed?.bind(llm);
    return {
      get model() {
        return llm.model;
      },
      complete: async (request: CompletionRequest): Promise<Completion> => {
        const account = this.current.getStore();
        if (!account) return llm.complete(request);
        const spent = account.tokens.prompt + account.tokens.completion;
        if (spent >= account.tokenBudget) {
          account.refused += 1;
          throw new EvalBudgetError(spent, account.tokenBudget);
        }
        const started = performance.now();
        try {
          const text = requestText(request, llm.model);
          const completion = await llm.complete(request);
          count(account, completion.usage, text);
          return completion;
        } finally {
          account.modelCalls += 1;
          account.modelMs += performance.now() - started;
        }
      },
      ...(embed ? { embed } : {}),
    };
  }
}

/** Adds one request's tokens; from the case's second request on, the share of its prompt that repeats a prefix. */
function count(account: CaseAccount, usage: Completion['usage'], text: string): void {
  const { tokens } = account;
  tokens.prompt += usage.promptTokens;
  tokens.completion += usage.completionTokens;
  if (usage.cachedTokens !== undefined) tokens.cached = (tokens.cached ?? 0) + usage.cachedTokens;
  if (account.sent.length > 0) {
    tokens.afterFirst = (tokens.afterFirst ?? 0) + usage.promptTokens;
    tokens.repeated = (tokens.repeated ?? 0) + Math.round(usage.promptTokens * repeatedShare(text, account.sent));
  }
  account.sent.push(text);
}
