/**
 * The console's own commands, typed on a line of their own: `exit` and `quit` end the session (like
 * Ctrl-D), `help` lists what can be typed, `new` starts a fresh thread, `share PATH` shares a file on this machine
 * in the thread (it reaches the thread as a file shared in Slack or Discord does). They never reach the model;
 * everything else, the thread commands included, goes to the thread, in order, except `stop`, which
 * goes at once.
 */

export type ConsoleCommand = 'exit' | 'help' | 'new';

/** The thread's `stop` (as the session router reads it): it must not wait behind the turn it cancels. */
const STOP = /^\s*(stop|cancel)\s*[.!]?\s*$/i;

export function isStop(text: string): boolean {
  return STOP.test(text);
}

const COMMAND = /^\s*\/?(exit|quit|help|new(?:\s+thread)?)\s*[.!]?\s*$/i;

export function parseConsoleCommand(text: string): ConsoleCommand | undefined {
  const word = COMMAND.exec(text)?.[1]?.toLowerCase();
  if (word === undefined) return undefined;
  if (word === 'quit') return 'exit';
  return word.startsWith('new') ? 'new' : (word as ConsoleCommand);
}

const SHARE = /^\s*\/?share\s+("[^"\n]+"|'[^'\n]+'|\S+)\s*$/i;
/** Ends like a file name, or starts like a path: `share of churners` is a question, `share q3.csv` a file. */
const PATH_LIKE = /^(~|\.{1,2})?\/|\.[A-Za-z0-9]{1,8}$/;

/** `share PATH` on a line of its own (quoted when it has spaces): the path, else undefined. */
export function parseShare(text: string): string | undefined {
  const typed = SHARE.exec(text)?.[1];
  if (typed === undefined) return undefined;
  const quoted = /^["']/.test(typed);
  const path = quoted ? typed.slice(1, -1) : typed;
  return quoted || PATH_LIKE.test(path) ? path : undefined;
}

/** What `help` prints: the thread commands (README, Talking to tally) and the console's own. */
export const CONSOLE_HELP = `Ask about your data in plain words, or type one of these on a line of its own:
  \`\`\`python or \`\`\`sql block   runs as it is, in this thread's kernel, without the model
  set key=value               this thread's settings: temperature=0.2 decompose=auto|on|off review=on
                              cot=on model=… approve=never|risky|always grounding=on|off
  accept | revise: … | discard
                              decide on the section waiting for review (accept s2 names another)
  report                      export the accepted sections
  save as playbook[: title]   draft a playbook from them
  run | skip[: why] | edit    decide on a cell held for approval (edit with a code block)
  share PATH                  put a data file (CSV, TSV, Excel, JSON) into this thread, as a file
                              shared in Slack or Discord; then ask about it ("quote" a path with spaces)
  reset                       a fresh kernel (variables and shared files go; the conversation and report stay)
  stop                        cancel the running turn
  new                         start a fresh thread (tally chat --new does it at launch)
  help                        this list
  exit, quit or Ctrl-D        end the session; Ctrl-C stops a running turn and ends it at once`;
