/**
 * The chat port: platform-neutral messages in (`Inbound`) and posts out (`Post`). Adapters for the
 * console, Slack and Discord render posts their own way; the agent never imports a platform SDK.
 */

/**
 * Names a conversation on any platform, e.g. `slack:T1:C1:1700000000.0001`, `discord:G1:THREAD`,
 * `console:local:1`. Every piece of state hangs off it.
 */
export type ThreadKey = string;

/**
 * Names a channel threads can be opened in: `slack:<team>:<channel>`, `discord:<guild>:<channel>`
 * (a thread key without its thread part).
 */
export type ChannelKey = string;

export interface ChatUser {
  id: string;
  name?: string;
  /** The platform says this person reviews (e.g. a Discord reviewer role), besides TALLY_REVIEWERS. */
  reviewer?: boolean;
  /**
   * The groups the platform says this person is in, for the access policy: Slack user group ids (those the policy
   * names, resolved by the adapter), Discord role ids. Absent: none known.
   */
  groups?: string[];
}

/**
 * Where a message was sent, as the platform says: the channel (for a Discord thread, the channel it hangs off; for
 * a Slack DM, the DM's channel id) and whether it is a direct message. The access policy decides by it.
 */
export interface Place {
  channel: string;
  dm: boolean;
}

/** A person's message, or their click on a control (`action`), in a thread. */
export interface Inbound {
  threadKey: ThreadKey;
  user: ChatUser;
  text: string;
  /** A button or choice: its id and value (e.g. an answer to a question). */
  action?: { id: string; value: string };
  /** Files the person shared with the message; downloaded only if accepted. */
  files?: SharedFile[];
  receivedAt: number;
  /** The platform's id of the person's message, when it is one; edits refer to it. */
  messageId?: string;
  /** An edit: the person changed their message `messageId`, which now says `text`. */
  edited?: boolean;
  /** Where it was sent; adapters set it on every inbound. Absent: the channel in the thread key, not a DM. */
  place?: Place;
  /**
   * Tells the platform it was received (Slack: the event's acknowledgement), called once the message is written down
   * (held by the replicas the store waits for), or when writing it failed and the thread was told. Never stored.
   */
  received?: () => void;
}

export interface SharedFile {
  name: string;
  mime: string;
  sizeBytes: number;
  download(): Promise<Buffer>;
}

export type Post =
  /** Markdown text. */
  | { kind: 'text'; markdown: string }
  /** Code or SQL the agent ran or proposes, with what it produced. */
  | { kind: 'code'; language: 'python' | 'sql'; code: string; output?: string; error?: string }
  /** A table preview. */
  | { kind: 'table'; title?: string; columns: string[]; rows: unknown[][]; truncated: boolean }
  /** A chart (PNG). */
  | { kind: 'chart'; title: string; png: Buffer; alt: string }
  /** A clarifying question; the next message (or a choice) answers it. */
  | { kind: 'question'; text: string; choices?: string[] }
  /** What the agent is doing now; adapters show it transiently. */
  | { kind: 'status'; text: string }
  /** Something went wrong; honest and short. */
  | { kind: 'error'; text: string }
  /**
   * A report section (or a playbook draft, id `playbook`) waiting for review: narrative, figures and
   * the code and SQL behind it (shown folded), with the `controls` as buttons.
   */
  | {
      kind: 'review';
      id: string;
      version: number;
      title: string;
      stage?: string;
      markdown: string;
      figures: Array<{ title: string; png: Buffer; alt: string }>;
      cells: Array<{ language: 'python' | 'sql'; code: string; author: 'model' | 'human' }>;
      controls: ReviewControl[];
    }
  /** A cell waiting for approval before it runs: Run / Edit / Skip. */
  | { kind: 'approval'; id: string; language: 'python' | 'sql'; code: string; reason: string }
  /** A file for the thread (report exports); `name` may hold a folder, e.g. `figures/s1-1.png`. */
  | { kind: 'file'; name: string; mime: string; content: Buffer; title?: string }
  /** For one person only (ephemeral where the platform has it), e.g. a polite refusal. */
  | { kind: 'notice'; userId: string; text: string }
  /**
   * The work of the running turn as it stands, posted again whenever it changes: adapters show it
   * live (a streamed message with plan and task cards, an edited progress message, a console block)
   * and stop showing it when `state` is no longer `running`. Text posts of a running turn belong to it.
   */
  | { kind: 'progress'; progress: TurnProgress }
  /** The person edited a message that had already run: offer to run the edited text (Run again). */
  | { kind: 'rerun'; messageId: string; text: string };

export type TaskStatus = 'pending' | 'in_progress' | 'complete' | 'error';

/** A turn's plan and tool calls, each with its status. */
export interface TurnProgress {
  /** Unique per turn: a new id is a new progress display. */
  turnId: string;
  /** Who asked (streams in Slack channels are addressed to them). */
  userId: string;
  startedAt: number;
  /** `done`: answered, or waiting for a person (question, review, approval); `failed`: stopped on an error. */
  state: 'running' | 'done' | 'failed';
  /** The plan's steps, when the turn made one. */
  plan: Array<{ title: string; status: TaskStatus }>;
  /** The tool calls, in the order the model made them. */
  tasks: ProgressTask[];
}

export interface ProgressTask {
  id: string;
  /** Short and human: "Count rows per table", "Load customers (5,634 rows)", "Run Python". */
  title: string;
  status: TaskStatus;
  /** One short line: rows returned, the error's last line, "repaired". */
  output?: string;
  /** The code or SQL, shortened to one line. */
  details?: string;
  startedAt?: number;
  endedAt?: number;
  /** An extraction's rows so far, and the rows expected when known. */
  rows?: { received: number; expected?: number };
}

export type ReviewControl = 'accept' | 'revise' | 'discard';

/**
 * Ids of the controls adapters render for review, approval and question posts. A click arrives as
 * `Inbound.action`: review controls carry `<id>@<version>` as value (feedback for revise in `text`);
 * Edit carries the new code in `text`; a choice carries the choice.
 */
/** Where adapters keep what they must know later about a post (`post:<platform>:<id>`, a value with its `threadKey`). */
export const REMEMBERED_POST_PREFIX = 'post:';
/**
 * Where an adapter records the message a thread's running turn keeps changing (a Slack stream, a Discord progress
 * message), so the thread's next turn can close one a dead process left; named by the thread, so forgetting the
 * thread removes it.
 */
export const openPostKey = (threadKey: ThreadKey) => `open-post:${threadKey}`;

export const ACTION_IDS = {
  accept: 'review.accept',
  revise: 'review.revise',
  discard: 'review.discard',
  run: 'approval.run',
  edit: 'approval.edit',
  skip: 'approval.skip',
  choice: 'question.choice',
  /** Run an edited message again; the value is the message id. */
  rerun: 'edit.rerun',
} as const;

export interface MessageRef {
  threadKey: ThreadKey;
  id: string;
}

/** A thread tally worked in, as a person's session list shows it. */
export interface SessionSummary {
  threadKey: ThreadKey;
  /** The first request of the thread. */
  request: string;
  status: 'working' | 'waiting for review' | 'waiting for an answer' | 'waiting for approval' | 'idle';
  sectionsAccepted: number;
  /** Report exports of the thread (file names), newest last. */
  exports: string[];
  updatedAt: number;
}

/**
 * Who looks at a surface beyond one thread (App Home, `/tally sessions`, autocomplete, suggested prompts) and
 * where: the access policy shows them only what they may see there.
 */
export interface Viewer {
  /** The channel the surface is in (`slack:<team>:<channel>`, `discord:<guild>:<channel>`, `console:local`). */
  channel: ChannelKey;
  user: ChatUser;
  /** Where it is shown; App Home and assistant panes are private to the viewer (`dm: true`). */
  place: Place;
}

/** What adapters may show beyond a thread: a person's sessions, starter prompts, default settings. */
export interface TallyDirectory {
  /** The viewer's sessions, newest first: those whose data they may still see there. */
  recentSessions(viewer: Viewer, limit: number): Promise<SessionSummary[]>;
  /** Suggestions built from the databases the viewer may read there and the playbooks. */
  starterPrompts(viewer: Viewer): Array<{ title: string; message: string }>;
  /** The settings a new thread starts with, one line each (`name: value`). */
  defaultSettings(): string[];
}

export interface ChatAdapter {
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Whether the platform can reach tally now: the Socket Mode or gateway connection is up (not while it
   * reconnects), the HTTP events endpoint listens. `/readyz` reports it as the `chat` check.
   */
  isConnected(): boolean;
  /** Registers the one handler for inbound messages; the adapter awaits it per message. */
  onInbound(handler: (inbound: Inbound) => Promise<void>): void;
  post(threadKey: ThreadKey, post: Post): Promise<MessageRef>;
  update(ref: MessageRef, post: Post): Promise<void>;
  setStatus(threadKey: ThreadKey, text: string): Promise<void>;
  /**
   * Posts `text` as a new message in a channel and opens a thread on it, for work tally starts by
   * itself (scheduled analyses). Resolves with the new thread's key; replies in it reach tally.
   */
  openThread?(channel: ChannelKey, text: string): Promise<ThreadKey>;
  /**
   * The groups `userId` is in as `ChatUser.groups` would carry them (Slack user groups, Discord roles in the
   * channel's guild), for work no message carries a user for: a schedule runs with its owner's permissions.
   */
  groupsOf?(userId: string, channel: ChannelKey): Promise<string[]>;
}
