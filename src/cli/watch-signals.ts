/**
 * Ctrl-C (SIGINT), a closed terminal (SIGHUP) or SIGTERM while a console command (`chat`, `demo`,
 * `ask`) runs. Node's default ends the process on the spot, leaving the session's container and its
 * loop-mounted disk image until the next start reaps them. Watched, the first signal resolves
 * `interrupted`: the command cancels its turn, closes tally (which disposes the kernels) and exits
 * with 128 + the signal's number, as a shell reports a process the signal ended. A second signal
 * exits at once.
 */
import { constants } from 'node:os';

export type WatchedSignal = 'SIGINT' | 'SIGHUP' | 'SIGTERM';

const SIGNALS: readonly WatchedSignal[] = ['SIGINT', 'SIGHUP', 'SIGTERM'];

export interface Interruption {
  signal: WatchedSignal;
  /** 130 for SIGINT, 129 for SIGHUP, 143 for SIGTERM. */
  exitCode: number;
}

/** What is watched: the process, or a stand-in in tests. */
export interface SignalSource {
  on(signal: WatchedSignal, listener: () => void): unknown;
  off(signal: WatchedSignal, listener: () => void): unknown;
  exit(code: number): void;
}

export interface SignalWatchOptions {
  /** Default `process`. */
  source?: SignalSource;
  /** Told once that the command is stopping (not after SIGHUP: no one is there to read it). */
  say?: (line: string) => void;
  /**
   * The terminal's streams. After SIGHUP reading or writing them fails (EIO), and an unheard stream
   * error would end the process before the kernels are disposed, so from then on their errors are
   * ignored. Default stdin, stdout and stderr.
   */
  terminal?: NodeJS.EventEmitter[];
}

export interface SignalWatch {
  /** Resolves at the first signal; never rejects. */
  readonly interrupted: Promise<Interruption>;
  /** The first signal, once it came. */
  readonly received: Interruption | undefined;
  /** Stops watching: the command is over (a signal now has Node's default effect again). */
  dispose(): void;
}

export function watchSignals(options: SignalWatchOptions = {}): SignalWatch {
  const source = options.source ?? process;
  let received: Interruption | undefined;
  let resolve: (interruption: Interruption) => void = () => {};
  const interrupted = new Promise<Interruption>((settle) => {
    resolve = settle;
  });
  const listeners = SIGNALS.map((signal) => {
    const listener = () => {
      if (received) {
        source.exit(received.exitCode);
        return;
      }
      received = { signal, exitCode: 128 + constants.signals[signal] };
      if (signal === 'SIGHUP') {
        for (const stream of options.terminal ?? [process.stdin, process.stdout, process.stderr]) {
          stream.on('error', () => {});
        }
      } else {
        options.say?.(
          "stopping: cancelling the running turn, if any, and removing the session's sandbox (Ctrl-C again quits at once)",
        );
      }
      resolve(received);
    };
    source.on(signal, listener);
    return [signal, listener] as const;
  });
  return {
    interrupted,
    get received() {
      return received;
    },
    dispose() {
      for (const [signal, listener] of listeners) source.off(signal, listener);
    },
  };
}
