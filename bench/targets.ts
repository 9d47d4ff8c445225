/** The goals the sandbox is held to, each judged on one number from this run. */

export interface Target {
  name: string;
  value: number;
  unit: 'x' | 'ms' | 'MiB';
  comparison: '<' | '<=' | '>=';
  limit: number;
  pass: boolean;
}

/** One runtime's numbers, each against the raw pipe under the same runtime where it is a ratio. */
export interface SandboxTargetInputs {
  /** Our trivial round trip p50 over the raw pipe's. */
  oursOverRawPipe: number;
  /** Our 1 MB output round trip p50 over the raw pipe's. */
  bigOutputOursOverRawPipe: number;
  warmAcquireP50Ms: number;
  coldStartP50Ms: number;
  idleMemoryMib: number;
}

/** What differs by runtime: gVisor's sentry costs start time and memory, so its limits are its own. */
export interface RuntimeGoals {
  coldStartMs: number;
  idleMemoryMib: number;
}

export const RUNTIME_GOALS: Record<string, RuntimeGoals> = {
  runc: { coldStartMs: 500, idleMemoryMib: 100 },
  runsc: { coldStartMs: 1000, idleMemoryMib: 120 },
};

function target(name: string, value: number, unit: Target['unit'], comparison: Target['comparison'], limit: number) {
  const pass = comparison === '<' ? value < limit : comparison === '<=' ? value <= limit : value >= limit;
  return { name, value, unit, comparison, limit, pass };
}

export function sandboxTargets(runtime: string, inputs: SandboxTargetInputs, goals: RuntimeGoals): Target[] {
  return [
    target(`${runtime}: trivial round trip, ours / raw pipe (p50)`, inputs.oursOverRawPipe, 'x', '<=', 2),
    target(`${runtime}: 1 MB output, ours / raw pipe (p50)`, inputs.bigOutputOursOverRawPipe, 'x', '<=', 1.5),
    target(`${runtime}: warm-pool acquire (p50)`, inputs.warmAcquireP50Ms, 'ms', '<', 50),
    target(
      `${runtime}: cold session start, acquire -> first '1' (p50)`,
      inputs.coldStartP50Ms,
      'ms',
      '<',
      goals.coldStartMs,
    ),
    target(`${runtime}: idle session memory`, inputs.idleMemoryMib, 'MiB', '<', goals.idleMemoryMib),
  ];
}

/** Jupyter (measured under runc) against ours under runc. */
export function jupyterTargets(jupyterOverOurs: number, bigOutputJupyterOverOurs: number): Target[] {
  return [
    target('trivial round trip, Jupyter / ours (p50)', jupyterOverOurs, 'x', '>=', 5),
    target('1 MB output, Jupyter / ours (p50)', bigOutputJupyterOverOurs, 'x', '>=', 1.5),
  ];
}

/** What gVisor's isolation may cost where the data moves. */
export function isolationCostTargets(extractionRunscOverRunc: number): Target[] {
  return [target('extraction 1M x 10 into the kernel, runsc / runc (p50)', extractionRunscOverRunc, 'x', '<=', 1.2)];
}
