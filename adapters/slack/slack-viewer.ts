/**
 * Who looks at a Slack surface beyond one thread (App Home, `/tally sessions`, an assistant pane's suggested
 * prompts) and where, as the access policy sees them: the channel as `slack:<team>:<channel>`, and the person with
 * the user groups their messages would carry.
 */
import type { Viewer } from '../../src/ports/chat.js';

export interface SlackViewerInput {
  team: string;
  /** The channel id the surface is in (a DM's id for the assistant pane). */
  channel: string;
  /** Whether only the viewer sees the surface (App Home, assistant panes, DMs). */
  dm: boolean;
  userId: string;
}

/** The viewer of a surface; `groupsOf` gives the person's user groups as inbounds carry them. */
export async function slackViewer(
  input: SlackViewerInput,
  groupsOf: (userId: string) => Promise<string[]>,
): Promise<Viewer> {
  return {
    channel: `slack:${input.team}:${input.channel}`,
    user: { id: input.userId, groups: await groupsOf(input.userId) },
    place: { channel: input.channel, dm: input.dm },
  };
}
