/** The goals the sandbox is held to, each judged on one number from this run. */

export interface Target {
  name: string;
  value: number;
  unit: 'x' | 'ms' | 'MiB';
  comparison: '<' | '<=' | '>=';
  limit: number;
  pass: boolean;
}

export interface TargetInputs {
  /** Our trivial round trip p50 over the raw pipe's. */
  oursOverRawPipe: number;
  /** Jupyter's trivial round trip p50 over ours. */
  jupyterOverOurs: number;
  /** Our 1 MB output round trip p50 over the raw pipe's. */
  bigOutputOursOverRawPipe: number;
  /** Jupyter's 1 MB output round trip p50 over ours. */
  bigOutputJupyterOverOurs: number;
  warmAcquireP50Ms: number;
  coldStartP50Ms: number;
  idleMemoryMib: number;
}

function target(name: string, value: number, unit: Target['unit'], comparison: Target['comparison'], limit: number) {
  const pass = comparison === '<' ? value < limit : comparison === '<=' ? value <= limit : value >= limit;
  return { name, value, unit, comparison, limit, pass };
}

export function evaluateTargets(inputs: TargetInputs): Target[] {
  return [
    target('trivial round trip, ours / raw pipe (p50)', inputs.oursOverRawPipe, 'x', '<=', 2),
    target('trivial round trip, Jupyter / ours (p50)', inputs.jupyterOverOurs, 'x', '>=', 5),
    target('1 MB output, ours / raw pipe (p50)', inputs.bigOutputOursOverRawPipe, 'x', '<=', 1.5),
    target('1 MB output, Jupyter / ours (p50)', inputs.bigOutputJupyterOverOurs, 'x', '>=', 1.5),
    target('warm-pool acquire (p50)', inputs.warmAcquireP50Ms, 'ms', '<', 50),
    target("cold session start, acquire -> first '1' (p50)", inputs.coldStartP50Ms, 'ms', '<', 500),
    target('idle session memory', inputs.idleMemoryMib, 'MiB', '<', 100),
  ];
}
