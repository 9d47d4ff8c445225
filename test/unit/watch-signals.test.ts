import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type SignalSource, type WatchedSignal, watchSignals } from '../../src/cli/watch-signals.js';

/** A process stand-in: signals are emitted by hand, exits recorded. */
class FakeProcess extends EventEmitter implements SignalSource {
  readonly exits: number[] = [];
  override on(signal: WatchedSignal, listener: () => void): this {
    return super.on(signal, listener);
  }
  override off(signal: WatchedSignal, listener: () => void): this {
    return super.off(signal, listener);
  }
  exit(code: number): void {
    this.exits.push(code);
  }
}

describe('watchSignals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGHUP', 129],
    ['SIGTERM', 143],
  ] as const)(
    'turns the first %s into an interruption with exit code %i, and a second into an exit at once',
    async (signal, exitCode) => {
      const source = new FakeProcess();
      const said: string[] = [];
      const terminal = new EventEmitter();
      const watch = watchSignals({ source, say: (line) => said.push(line), terminal: [terminal] });
      expect(watch.received).toBeUndefined();
      source.emit(signal);
      expect(await watch.interrupted).toEqual({ signal, exitCode });
      expect(watch.received).toEqual({ signal, exitCode });
      expect(source.exits).toEqual([]);
      // No one reads a closed terminal: nothing is said, and its errors no longer end the process.
      expect(said).toHaveLength(signal === 'SIGHUP' ? 0 : 1);
      expect(terminal.listenerCount('error')).toBe(signal === 'SIGHUP' ? 1 : 0);
      source.emit('SIGINT');
      expect(source.exits).toEqual([exitCode]);
      watch.dispose();
    },
  );

  it('leaves the signals alone once disposed', () => {
    const source = new FakeProcess();
    const watch = watchSignals({ source, terminal: [] });
    expect(source.listenerCount('SIGINT')).toBe(1);
    watch.dispose();
    for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM']) expect(source.listenerCount(signal)).toBe(0);
  });
});
