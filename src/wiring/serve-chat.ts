/**
 * tally connected to a chat platform: the composition of tally (create-tally.ts) with one adapter,
 * wired both ways. `tally slack` and `tally discord` run through here, and so do the end-to-end tests.
 */

import { policyUsergroups } from '../policy/policy-file.js';
import type { ChatAdapter } from '../ports/chat.js';
import { type Clock, SYSTEM_CLOCK } from '../ports/clock.js';
import { loadSchedules } from '../schedules/load-schedules.js';
import type { SchedulePlatform } from '../schedules/schedule-file.js';
import { ScheduleService } from '../schedules/schedule-service.js';
import { ThreadWatch } from '../schedules/thread-watch.js';
import { type SessionRecord, sessionKey } from '../sessions/session-record.js';
import { warnIfLocksShorterThanFailover } from '../store/failover-time.js';
import type { AdapterContext } from './chat-adapters.js';
import { type CreateTallyOptions, createTally, type Tally } from './create-tally.js';

export interface ChatService<A extends ChatAdapter> {
  tally: Tally;
  adapter: A;
  /** The schedules of this platform (TALLY_SCHEDULES), when a file is set and `platform` is given. */
  schedules: ScheduleService | undefined;
  close(): Promise<void>;
}

export async function serveChat<A extends ChatAdapter>(
  options: Omit<CreateTallyOptions, 'post'> & {
    /** Builds the adapter from what it needs of tally. */
    createAdapter: (context: AdapterContext) => A;
    /** The adapter's platform: the schedules (TALLY_SCHEDULES) whose channel is on it run here. */
    platform?: SchedulePlatform;
    /** Start the schedules' timer loop. Default true; `tally schedules run` only runs one by hand. */
    runSchedules?: boolean;
    /** The schedules' clock. Default the system's; tests move a fake one. */
    clock?: Clock;
  },
): Promise<ChatService<A>> {
  // Checked before anything starts: a malformed file stops start-up naming the entry.
  const schedules = await loadSchedules(options.config);
  const watch = new ThreadWatch();
  let adapter: A | undefined;
  const tally = await createTally({
    warnWithoutPolicy: true,
    sweepRetention: true,
    reapDeadReplicas: true,
    ...options,
    chatConnected: () => adapter?.isConnected() ?? false,
    post: (threadKey, post) => {
      if (!adapter) throw new Error('the chat adapter is not ready');
      watch.seen(threadKey, post);
      return adapter.post(threadKey, post);
    },
  });
  const started = options.createAdapter({
    isKnownThread: async (threadKey) => (await tally.store.get<SessionRecord>(sessionKey(threadKey))) !== undefined,
    memory: tally.store,
    directory: tally.directory,
    usergroups: tally.policy ? policyUsergroups(tally.policy.policy) : [],
  });
  adapter = started;
  started.onInbound((inbound) => tally.router.handle(inbound));
  try {
    await started.start();
  } catch (error) {
    await tally.close();
    throw error;
  }
  // What a process that died (or this one, before a restart) left unfinished goes on now.
  tally.router.startRecovering();
  const { redisSentinel, redisCluster, operations } = options.config;
  const failingOver = redisSentinel
    ? { sentinel: redisSentinel }
    : redisCluster
      ? { cluster: redisCluster }
      : undefined;
  if (failingOver) await warnIfLocksShorterThanFailover(failingOver, operations.lockTtlMs, options.logger);
  const platform = options.platform;
  const scheduled = platform ? schedules.filter((schedule) => schedule.platform === platform) : [];
  const service =
    options.config.schedulesFile && platform
      ? new ScheduleService({
          schedules: scheduled,
          adapter: started,
          router: tally.router,
          store: tally.store,
          watch,
          clock: options.clock ?? SYSTEM_CLOCK,
          instance: options.config.instance,
          ...(tally.policy ? { access: tally.policy } : {}),
          logger: options.logger.child({ component: 'schedules' }),
        })
      : undefined;
  if (service && options.runSchedules !== false) {
    await service.start().catch(async (error: unknown) => {
      await tally.router.shutdown(0);
      await started.stop();
      await tally.close();
      throw error;
    });
    options.logger.info({ schedules: scheduled.map((schedule) => schedule.name) }, 'schedules started');
  }
  return {
    tally,
    adapter: started,
    schedules: service,
    /**
     * Graceful: messages that still arrive are written down, not run; running turns get
     * TALLY_SHUTDOWN_GRACE_MS to finish and the rest stay in the inbox for the next process; then
     * the adapter disconnects and every kernel is disposed.
     */
    async close() {
      // No run starts from now on; runs under way end with the router's shutdown.
      const schedulesStopped = service?.stop();
      await tally.router.shutdown(options.config.operations.shutdownGraceMs);
      await schedulesStopped;
      await started.stop();
      await tally.close();
    },
  };
}
