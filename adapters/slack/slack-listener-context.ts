/**
 * What the Slack listeners and the surfaces they register (assistant threads, App Home, `/tally`) are given: the
 * Bolt app and the adapter's side of tally. Kept apart so the surfaces need not import the listeners.
 */
import type { App } from '@slack/bolt';
import type { Inbound, TallyDirectory } from '../../src/ports/chat.js';
import type { Remembered } from './slack-render.js';

export interface SlackListenerContext {
  app: App;
  botToken: string;
  botUserId: () => string;
  /**
   * Hands an inbound message (with its `place`) to tally; the adapter adds the person's user groups. Not awaited by
   * Slack: the work goes on after the ack.
   */
  deliver: (inbound: Inbound) => void;
  /**
   * The user groups the access policy names that a person is in, as `deliver` adds them to inbounds: surfaces beyond
   * a thread (App Home, `/tally sessions`, suggested prompts) show what those groups may see. Never rejects.
   */
  groupsOf: (userId: string) => Promise<string[]>;
  /** Threads tally takes part in: started by a mention here, or known to the store. */
  isKnownThread: (threadKey: string) => Promise<boolean>;
  markThread: (threadKey: string) => void;
  /** What was posted at a message ts (review and approval posts), for reactions and Edit. */
  remembered: (channel: string, ts: string) => Promise<(Remembered & { threadKey: string }) | undefined>;
  allowed: (channel: string, user: string) => boolean;
  refuse: (channel: string, user: string, threadTs: string | undefined) => Promise<void>;
  acknowledge: (channel: string, ts: string) => Promise<void>;
  say: (threadKey: string, text: string) => Promise<void>;
  /** Posts a new top-level message in a channel (a `/tally` session's root); resolves with its ts. */
  postRoot: (channel: string, text: string) => Promise<string>;
  /** A person's sessions, starter prompts and default settings (App Home, `/tally`, assistant threads). */
  directory: TallyDirectory | undefined;
  /** The workspace URL `auth.test` gave (`https://<team>.slack.com/`), for links to threads. */
  workspaceUrl: () => string;
  logError: (error: unknown, message: string) => void;
}
