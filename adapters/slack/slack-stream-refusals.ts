/**
 * Workspaces that refuse streamed messages, remembered so their threads go straight to the
 * non-streamed display: in memory and, when given, in the store (`PostMemory`), for a week, after
 * which streaming is tried again (a workspace may have been upgraded or the app reinstalled).
 *
 * A refusal is an error of `chat.startStream` that says the workspace or the app's token cannot
 * stream at all, whatever the thread: the method unknown or unsupported there (`unknown_method`,
 * `method_not_supported`, `method_deprecated`), the feature switched off (`feature_not_enabled`),
 * or the token not allowed (`not_allowed_token_type`, `missing_scope`, `no_permission`,
 * `team_access_not_granted`). Other errors (a bad argument, a channel type that cannot stream, a
 * rate limit, an outage) make only that turn fall back.
 */
import type { PostMemory } from '../common/remembered-posts.js';

const REFUSALS = new Set([
  'method_not_supported',
  'unknown_method',
  'method_deprecated',
  'feature_not_enabled',
  'not_allowed_token_type',
  'missing_scope',
  'no_permission',
  'team_access_not_granted',
]);

/** How long a refusal is remembered. */
const KEEP_MS = 7 * 24 * 60 * 60_000;

/** The Slack error code of a failed Web API call (`WebAPIPlatformError.data.error`), if it is one. */
export function slackErrorCode(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof code === 'string' ? code : undefined;
}

/** Whether a `chat.startStream` error means the workspace cannot stream at all. */
export function isStreamingRefusal(error: unknown): boolean {
  return REFUSALS.has(slackErrorCode(error) ?? '');
}

export class StreamingRefusals {
  /** Team id → when the refusal is forgotten (ms since the epoch). */
  private readonly local = new Map<string, number>();

  constructor(
    private readonly memory?: PostMemory,
    private readonly now: () => number = Date.now,
  ) {}

  async refuses(team: string): Promise<boolean> {
    const until = this.local.get(team) ?? (await this.memory?.get<number>(key(team)).catch(() => undefined));
    if (until === undefined) return false;
    this.local.set(team, until);
    return until > this.now();
  }

  async remember(team: string): Promise<void> {
    const until = this.now() + KEEP_MS;
    this.local.set(team, until);
    await this.memory?.set(key(team), until, KEEP_MS);
  }
}

const key = (team: string) => `slack:streaming-refused:${team}`;
