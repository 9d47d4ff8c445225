/** Kernels started ahead of need, so a new thread gets a ready interpreter in milliseconds. */
import type { Logger } from '../src/logger.js';
import type { DockerKernel } from './docker-kernel.js';

export class WarmPool {
  private readonly ready: DockerKernel[] = [];
  private readonly starting = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly create: () => Promise<DockerKernel>,
    private readonly logger: Logger,
  ) {}

  get available(): number {
    return this.ready.length;
  }

  /** A ready kernel, if any; the pool starts a replacement in the background. */
  take(): DockerKernel | undefined {
    const kernel = this.ready.shift();
    this.fill();
    return kernel;
  }

  fill(): void {
    while (!this.closed && this.ready.length + this.starting.size < this.size) {
      const starting = this.create().then(
        async (kernel) => {
          if (this.closed) await kernel.dispose();
          else this.ready.push(kernel);
        },
        (error: unknown) => this.logger.error({ err: error }, 'could not start a warm kernel'),
      );
      this.starting.add(starting);
      void starting.finally(() => this.starting.delete(starting));
    }
  }

  /** Resolves when every kernel being started has finished starting. */
  async settled(): Promise<void> {
    await Promise.all(this.starting);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    await Promise.all(this.ready.splice(0).map((kernel) => kernel.dispose()));
  }
}
