/**
 * The LLM stand-in's prompt cache, the way providers keep theirs (OpenAI: prompts of 1,024 tokens or
 * more, an exact prefix, in 128-token steps): a request is cut into blocks of 128 tokens (512
 * characters at the stand-in's four characters a token), each block known by a hash of every block
 * before it, and the leading blocks an earlier request already sent are what it reports as
 * `cached_tokens`. The prompt is what a provider renders, in its order: the tools, then the messages.
 */
import { createHash } from 'node:crypto';

const CHARS_PER_TOKEN = 4;
const BLOCK_TOKENS = 128;
const MIN_PROMPT_TOKENS = 1024;
/** Blocks remembered at most; the oldest are forgotten first, as a provider's cache evicts. */
const MAX_BLOCKS = 200_000;

/** The prompt as a provider would see it, for prefix matching: the model, the tools, each message. */
export function promptText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return [String(body.model ?? ''), JSON.stringify(body.tools ?? []), ...messages.map((m) => JSON.stringify(m))].join(
    '\n',
  );
}

/** The stand-in's estimate of a prompt's tokens. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export class ScriptedPromptCache {
  private readonly blocks = new Set<string>();

  /** The tokens of `prompt` an earlier prompt already sent as a prefix; remembers this one's blocks. */
  lookup(prompt: string, promptTokens: number): number {
    const size = BLOCK_TOKENS * CHARS_PER_TOKEN;
    let chain = '';
    let cachedBlocks = 0;
    let matching = true;
    for (let start = 0; start + size <= prompt.length; start += size) {
      chain = createHash('sha256')
        .update(chain)
        .update(prompt.slice(start, start + size))
        .digest('base64');
      if (matching && this.blocks.has(chain)) cachedBlocks += 1;
      else matching = false;
      this.remember(chain);
    }
    if (promptTokens < MIN_PROMPT_TOKENS) return 0;
    return Math.min(cachedBlocks * BLOCK_TOKENS, promptTokens);
  }

  private remember(block: string): void {
    this.blocks.delete(block);
    this.blocks.add(block);
    if (this.blocks.size > MAX_BLOCKS) this.blocks.delete(this.blocks.values().next().value as string);
  }
}
