/**
 * Who spent what: every model request made while a case's thread works is counted to that case
 * (tokens, requests, time waiting), and a case over its token budget is refused further requests.
 * Cases run in parallel through one tally, so the case is found from the async context the harness
 * runs it in (AsyncLocalStorage follows the turn through the router, the agent and its tools).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { EvalBudgetError } from '../base/errors.js';
import type { Completion, CompletionRequest, LlmClient } from '../ports/llm.js';

export interface CaseUsage {
  tokens: { prompt: number; completion: number };
  modelCalls: number;
  modelMs: number;
  /** Requests refused because the budget was spent. */
  refused: number;
}

interface CaseAccount extends CaseUsage {
  tokenBudget: number;
}

export class CaseAccounting {
  private readonly current = new AsyncLocalStorage<CaseAccount>();

  /** Runs `work` as one case: its model requests count to the usage returned with the result. */
  async run<T>(tokenBudget: number, work: () => Promise<T>): Promise<{ value: T; usage: CaseUsage }> {
    const account: CaseAccount = {
      tokens: { prompt: 0, completion: 0 },
      modelCalls: 0,
      modelMs: 0,
      refused: 0,
      tokenBudget,
    };
    const value = await this.current.run(account, work);
    const { tokenBudget: _, ...usage } = account;
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
          const completion = await llm.complete(request);
          account.tokens.prompt += completion.usage.promptTokens;
          account.tokens.completion += completion.usage.completionTokens;
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
