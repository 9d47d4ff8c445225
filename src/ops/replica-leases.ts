/**
 * What a dead replica leaves behind is reaped by the living. Each service replica on a shared store keeps a lease
 * (`replica-lease:<instance>`, lasting TALLY_REPLICA_LEASE_MS, renewed every third of it) and a record of where its
 * kernels run (`replica:<instance>`: the Docker engine's id, its workspace folder, when it last renewed). A replica
 * that finds the record of another instance on its own engine and no lease (its process died and did not come back)
 * removes that instance's containers made while its lease lasted, with their workspace mounts and folders, under a
 * lock so that one replica does it, and forgets the record. An instance started again under the same name after its
 * lease ran out makes younger containers, which are left alone. A replica
 * that stops cleanly removes its own kernels (the sandbox's close) and both keys.
 */
import type { Logger } from '../base/logger.js';
import type { Store } from '../ports/store.js';

/** Where an instance's kernels run, and the reaping of another instance's leftovers (DockerSandbox has both). */
export interface ReplicaSandbox {
  placement(): Promise<{ engine: string; workspaceRoot: string }>;
  reapInstance(instance: string, workspaceRoot: string, before: number): Promise<number>;
}

interface ReplicaRecord {
  instance: string;
  engine: string;
  workspaceRoot: string;
  renewedAt: number;
}

export interface ReplicaLeasesOptions {
  store: Store;
  sandbox: ReplicaSandbox;
  instance: string;
  leaseMs: number;
  logger: Logger;
  now?: () => number;
}

const RECORD = 'replica:';
const LEASE = 'replica-lease:';

export class ReplicaLeases {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: ReplicaLeasesOptions,
    private readonly placement: { engine: string; workspaceRoot: string },
  ) {}

  /** Takes the lease, reaps what dead replicas on this engine left, and goes on doing both every third of the lease. */
  static async start(options: ReplicaLeasesOptions): Promise<ReplicaLeases> {
    const leases = new ReplicaLeases(options, await options.sandbox.placement());
    await leases.renew();
    await leases.reapDead();
    leases.timer = setInterval(
      () => {
        leases.ticking = leases.ticking.then(() => leases.tick());
      },
      Math.max(100, Math.floor(options.leaseMs / 3)),
    );
    leases.timer.unref();
    return leases;
  }

  /** Stops renewing and gives the lease and the record up (the sandbox removes this instance's kernels itself). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    const { store, instance } = this.options;
    await Promise.all([store.delete(`${LEASE}${instance}`), store.delete(`${RECORD}${instance}`)]).catch(
      (error: unknown) => this.options.logger.warn({ err: error }, 'could not give up the replica lease'),
    );
  }

  /** The instances on this engine whose lease has run out: each reaped once, by one replica. */
  async reapDead(): Promise<string[]> {
    const { store, sandbox, instance, logger } = this.options;
    const reaped: string[] = [];
    for (const name of await store.keys(RECORD)) {
      const record = await store.get<ReplicaRecord>(name);
      if (!record || record.instance === instance || record.engine !== this.placement.engine) continue;
      await store
        .withLock(
          `reap:${record.instance}`,
          async () => {
            // Looked at again under the lock: another replica may have reaped it, or it may be back.
            if ((await store.get(`${LEASE}${record.instance}`)) !== undefined) return;
            if ((await store.get(name)) === undefined) return;
            // Whatever it made, it made while its lease lasted; a namesake started since makes younger ones.
            const before = record.renewedAt + this.options.leaseMs;
            const containers = await sandbox.reapInstance(record.instance, record.workspaceRoot, before);
            await store.delete(name);
            reaped.push(record.instance);
            logger.warn(
              { instance: record.instance, containers },
              'a replica stopped renewing its lease: removed the kernels and workspaces it left on this engine',
            );
          },
          { waitMs: 0 },
        )
        .catch(() => {}); // another replica is reaping it
    }
    return reaped;
  }

  private async tick(): Promise<void> {
    try {
      await this.renew();
      await this.reapDead();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not renew the replica lease or reap dead replicas');
    }
  }

  private async renew(): Promise<void> {
    const { store, instance, leaseMs } = this.options;
    const renewedAt = (this.options.now ?? Date.now)();
    const record: ReplicaRecord = { instance, ...this.placement, renewedAt };
    await store.set(`${LEASE}${instance}`, renewedAt, leaseMs);
    await store.set(`${RECORD}${instance}`, record);
  }
}
