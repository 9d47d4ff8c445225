/**
 * A scripted model step that holds its reply until the test releases it: the process waiting on it
 * can be killed meanwhile (a crash mid-turn), and the reply then goes to a dead process.
 */
import { type ScriptStep, say } from '../../src/demo/scripted-model-server.js';

export interface HeldReply {
  /** The step to put in the script. */
  readonly step: ScriptStep;
  /** Resolves when the model server has reached the step (the turn is waiting on the model). */
  readonly reached: Promise<void>;
  /** Lets the step answer `text`; harmless before it is reached or when called twice. */
  release(): void;
}

export function heldReply(text: string): HeldReply {
  let reach: () => void = () => {};
  let release: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    step: async () => {
      reach();
      await released;
      return say(text);
    },
    reached,
    release: () => release(),
  };
}
