/**
 * What the shared chat scenario needs from a platform, so one scenario file drives Slack and Discord
 * through their real SDKs and stand-ins: start a session as a person would there, reply, press a
 * control on a post, fill in the form it opens, react, and read back what the thread shows.
 */
import type { ScriptStep } from '../../src/demo/scripted-model-server.js';

export type Control = 'accept' | 'revise' | 'discard' | 'run' | 'edit' | 'skip';

export interface ThreadView {
  /** Texts of tally's messages in the session's thread, oldest first. */
  texts: string[];
  /** Files tally attached or uploaded in the thread. */
  files: Array<{ name: string; bytes: Buffer; description?: string }>;
}

export interface ChatDriver {
  /** Starts tally on the platform with the scripted model. */
  start(script: ScriptStep[]): Promise<void>;
  /** Starts a session as `user` would on this platform (a mention, /analyze). */
  ask(user: string, question: string): Promise<void>;
  /** A reply in the session's thread. */
  reply(user: string, text: string): Promise<void>;
  /** Presses a control on tally's latest message whose text contains `marker`. */
  press(user: string, marker: string, control: Control): Promise<void>;
  /** Submits the form a control opened (feedback for Revise, code for Edit). */
  submitForm(user: string, text: string): Promise<void>;
  /** Reacts to tally's latest message whose text contains `marker`, as the shortcut for `control`. */
  react(user: string, marker: string, control: 'accept' | 'revise' | 'discard'): Promise<void>;
  /** What the session's thread shows now. */
  thread(): ThreadView;
  /** Messages only `user` sees (ephemeral refusals). */
  noticesFor(user: string): string[];
  /** Resolves when `probe` holds (checked as the platform's state changes). */
  waitFor<T>(probe: () => T, timeoutMs?: number): Promise<Exclude<T, false | '' | 0 | null | undefined>>;
  close(): Promise<void>;
}
