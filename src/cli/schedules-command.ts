/**
 * `tally schedules list`: each schedule of TALLY_SCHEDULES with its next due times in its time zone
 * and its last run; `tally schedules run NAME`: runs one now, connected to its platform the way
 * `tally slack|discord` is (same store, so the service goes on with the thread afterwards).
 */

import { type Config, loadConfig } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import { createLlmClient } from '../llm/create-llm-client.js';
import { formatDueTime, nextDueTimes } from '../schedules/due-times.js';
import { loadSchedules } from '../schedules/load-schedules.js';
import type { Schedule } from '../schedules/schedule-file.js';
import { type ScheduleState, ScheduleStates } from '../schedules/schedule-state.js';
import { storeOf } from '../store/create-store.js';
import { discordAdapter, slackAdapter } from '../wiring/chat-adapters.js';
import { serveChat } from '../wiring/serve-chat.js';

export interface SchedulesCommandIo {
  env: NodeJS.ProcessEnv;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  now: () => number;
}

const USAGE = 'usage: tally schedules list | tally schedules run NAME';
/** Due times `list` shows per schedule. */
const NEXT_COUNT = 3;

export async function schedulesCommand(
  words: string[],
  io: SchedulesCommandIo = {
    env: process.env,
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    now: () => Date.now(),
  },
): Promise<number> {
  const [verb, name, ...extra] = words;
  if (!(verb === 'list' && name === undefined) && !(verb === 'run' && name !== undefined && extra.length === 0)) {
    io.stderr(USAGE);
    return 2;
  }
  const config = loadConfig(io.env);
  if (config.schedulesFile === undefined) {
    io.stderr('TALLY_SCHEDULES is not set: point it at a YAML or JSON file of schedules (see the README, Schedules).');
    return 2;
  }
  const schedules = await loadSchedules(config);
  if (verb === 'list') return list(config, schedules, io);
  const schedule = schedules.find((candidate) => candidate.name === name);
  if (!schedule) {
    const known = schedules.map((candidate) => candidate.name).join(', ');
    io.stderr(`There is no schedule '${name}' in ${config.schedulesFile} (known: ${known}).`);
    return 2;
  }
  return run(config, schedule, io);
}

async function list(config: Config, schedules: Schedule[], io: SchedulesCommandIo): Promise<number> {
  const states = await readStates(config, schedules).catch((error: unknown) => {
    io.stderr(`(last runs unknown: ${error instanceof Error ? error.message : String(error)})`);
    return new Map<string, ScheduleState>();
  });
  const now = io.now();
  for (const schedule of schedules) {
    const who = `owner ${schedule.owner}, review ${schedule.review}`;
    io.stdout(`${schedule.name}: ${schedule.cron} (${schedule.timezone}) -> ${schedule.channel}, ${who}`);
    io.stdout(`  asks: ${schedule.request}`);
    for (const dueAt of nextDueTimes(schedule, now, NEXT_COUNT)) {
      io.stdout(`  next: ${formatDueTime(dueAt, schedule.timezone)}`);
    }
    const last = states.get(schedule.name)?.lastRun;
    if (last) {
      const how = [last.manual ? 'by hand' : '', last.outcome ?? 'running', last.threadKey ?? ''].filter(Boolean);
      io.stdout(`  last run: ${formatDueTime(last.dueAt, schedule.timezone)}, ${how.join(', ')}`);
    }
  }
  return 0;
}

async function readStates(config: Config, schedules: Schedule[]): Promise<Map<string, ScheduleState>> {
  const store = await storeOf(config, createLogger({ level: 'silent' }));
  try {
    const states = new ScheduleStates(store, config.instance);
    const found = new Map<string, ScheduleState>();
    for (const schedule of schedules) {
      const state = await states.read(schedule.name);
      if (state) found.set(schedule.name, state);
    }
    return found;
  } finally {
    await store.close();
  }
}

/** Connects to the schedule's platform, runs it once, and disconnects. Exit 1 when the run failed. */
async function run(config: Config, schedule: Schedule, io: SchedulesCommandIo): Promise<number> {
  const { slack, discord } = config;
  if (schedule.platform === 'slack' ? !slack : !discord) {
    const needs =
      schedule.platform === 'slack' ? 'SLACK_BOT_TOKEN and SLACK_APP_TOKEN (or SLACK_SIGNING_SECRET)' : 'DISCORD_TOKEN';
    io.stderr(
      `Schedule '${schedule.name}' posts to ${schedule.platform}: set ${needs}, as for tally ${schedule.platform}.`,
    );
    return 2;
  }
  if (!config.llm.baseUrl) {
    io.stderr('Running a schedule needs a model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL).');
    return 2;
  }
  const logger = createLogger({ level: config.logLevel });
  const service = await serveChat({
    // The service of this platform may hold TALLY_HTTP_PORT: a one-off run serves no metrics.
    config: { ...config, operations: { ...config.operations, httpPort: undefined } },
    logger,
    requireReadonly: true,
    llm: createLlmClient(config.llm, logger.child({ component: 'llm' })),
    platform: schedule.platform,
    runSchedules: false,
    createAdapter: (context) =>
      schedule.platform === 'slack' && slack
        ? slackAdapter(slack, logger, context)
        : discordAdapter(discord as NonNullable<typeof discord>, logger, context),
  });
  try {
    const result = await service.schedules?.runNow(schedule);
    const outcome = result?.outcome ?? 'failed';
    io.stdout(`${schedule.name}: ${outcome}${result?.threadKey ? ` (thread ${result.threadKey})` : ''}`);
    return outcome === 'failed' ? 1 : 0;
  } finally {
    await service.close();
  }
}
