import { describe, expect, it } from 'vitest';
import { KernelAdmission, type Release } from '../../sandbox/kernel-admission.js';

/** Kernels as admission sees them: a count, and idle ones that parking may take. */
function world(options: { maxConcurrentStarts: number; maxKernels: number }) {
  const state = { kernels: 0, idle: 0, parked: 0 };
  const admission = new KernelAdmission({
    ...options,
    kernelCount: () => state.kernels,
    parkOne: async () => {
      if (state.idle === 0) return false;
      state.idle -= 1;
      state.kernels -= 1;
      state.parked += 1;
      return true;
    },
    recheckMs: 5,
  });
  return { state, admission };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('KernelAdmission', () => {
  it('runs at most the start limit at once, first come first served, telling waiters their place once', async () => {
    const { admission } = world({ maxConcurrentStarts: 2, maxKernels: 100 });
    const told: Array<[number, number]> = [];
    const order: number[] = [];
    const releases: Release[] = [];
    const admitted = Array.from({ length: 5 }, (_, index) =>
      admission.admit({ onQueued: (ahead) => told.push([index, ahead]) }).then((release) => {
        order.push(index);
        releases.push(release);
      }),
    );
    await tick();
    expect(order).toEqual([0, 1]);
    expect(admission.inProgress).toBe(2);
    expect(admission.waiting).toBe(3);
    expect(told).toEqual([
      [2, 0],
      [3, 1],
      [4, 2],
    ]);
    releases[0]?.();
    releases[0]?.(); // twice is harmless
    await tick();
    expect(order).toEqual([0, 1, 2]);
    for (const release of [releases[1], releases[2]]) release?.();
    await tick();
    releases[3]?.();
    await Promise.all(admitted);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(told).toHaveLength(3);
  });

  it('parks an idle kernel at the cap, and waits when none is idle until one becomes idle', async () => {
    const { admission, state } = world({ maxConcurrentStarts: 2, maxKernels: 3 });
    state.kernels = 3;
    state.idle = 1;
    const first = await admission.admit();
    expect(state.parked).toBe(1);
    state.kernels += 1;
    first();
    let second: Release | undefined;
    let queuedAhead: number | undefined;
    const waiting = admission.admit({ onQueued: (ahead) => (queuedAhead = ahead) }).then((release) => {
      second = release;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(second).toBeUndefined();
    expect(queuedAhead).toBe(0);
    state.idle = 1; // a thread finished its turn: its kernel is idle now
    await waiting;
    expect(state.parked).toBe(2);
    second?.();
  });

  it('admits background starts only when nobody waits, leaving a slot free', async () => {
    const { admission, state } = world({ maxConcurrentStarts: 2, maxKernels: 4 });
    const background = admission.tryAdmitBackground();
    expect(background).toBeDefined();
    expect(admission.tryAdmitBackground()).toBeUndefined(); // one slot stays for threads
    const foreground = await admission.admit();
    const waiting = admission.admit();
    expect(admission.tryAdmitBackground()).toBeUndefined(); // someone waits
    background?.();
    foreground();
    (await waiting)();
    state.kernels = 4;
    expect(admission.tryAdmitBackground()).toBeUndefined(); // at the cap: the pool never parks
  });

  it('rejects waiters when closed, and a waiter that gives up leaves the line', async () => {
    const { admission } = world({ maxConcurrentStarts: 1, maxKernels: 10 });
    const held = await admission.admit();
    const controller = new AbortController();
    const leaving = admission.admit({ signal: controller.signal });
    const staying = admission.admit();
    controller.abort(new Error('gone'));
    await expect(leaving).rejects.toThrow('gone');
    expect(admission.waiting).toBe(1);
    admission.close(new Error('closing'));
    await expect(staying).rejects.toThrow('closing');
    await expect(admission.admit()).rejects.toThrow('closing');
    held();
  });
});
