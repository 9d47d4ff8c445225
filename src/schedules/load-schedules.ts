/** The schedules of TALLY_SCHEDULES, checked against the configured databases, playbooks and allowed channels. */
import { loadPlaybooks } from '../agent/playbooks.js';
import { loadSavedPlaybooks } from '../agent/saved-playbooks.js';
import type { Config } from '../base/config.js';
import type { ChannelKey } from '../ports/chat.js';
import { loadScheduleFile, type Schedule } from './schedule-file.js';

/** Empty when TALLY_SCHEDULES is not set; throws ScheduleFileError when the file is malformed. */
export async function loadSchedules(config: Config): Promise<Schedule[]> {
  if (config.schedulesFile === undefined) return [];
  const saved = await loadSavedPlaybooks(config.review.playbookDir);
  return loadScheduleFile(config.schedulesFile, {
    databases: config.databases.map((database) => database.name),
    playbooks: [...(await loadPlaybooks()), ...saved],
    channelProblem: (channel) => channelProblem(config, channel),
  });
}

/** A channel tally would ignore replies in: outside SLACK_ALLOWED_CHANNELS or the Discord allow-lists. */
function channelProblem(config: Config, channel: ChannelKey): string | undefined {
  const [platform, scope = '', id = ''] = channel.split(':');
  const refused = (variable: string) =>
    `tally ignores replies there: add it to ${variable}, or pick an allowed channel`;
  if (platform === 'slack') {
    const allowed = config.slack?.allowedChannels ?? [];
    return allowed.length > 0 && !allowed.includes(id) ? refused('SLACK_ALLOWED_CHANNELS') : undefined;
  }
  const { allowedGuilds = [], allowedChannels = [] } = config.discord ?? {};
  if (allowedGuilds.length > 0 && !allowedGuilds.includes(scope)) return refused('DISCORD_ALLOWED_GUILDS');
  return allowedChannels.length > 0 && !allowedChannels.includes(id) ? refused('DISCORD_ALLOWED_CHANNELS') : undefined;
}
