/**
 * The kernel's side of an extraction: a cell started before the first row, which decodes each part
 * as it lands (sandbox/kernel/tally_extract.py `follow_extract`) and binds the DataFrame once the
 * manifest is written, so the kernel's decoding overlaps the query instead of following it.
 */
import { ExtractFailedError } from '../../base/errors.js';
import type { Provenance } from '../../ports/database.js';
import type { Execution, Kernel } from '../../ports/sandbox.js';

export interface FrameLoading {
  /** The DataFrame's columns with their pandas dtypes, once the cell has bound it. */
  finish(provenance: Provenance): Promise<Provenance['columns']>;
  /** Waits for the cell to give up (the caller removed the folder). */
  abandon(): Promise<void>;
}

/** Extra time the cell may take beyond the query's own limit (decoding the last part, building the frame). */
const DECODE_MARGIN_MS = 120_000;

export function startLoading(kernel: Kernel, name: string, folder: string, timeoutMs: number): FrameLoading {
  const code = [
    'from tally_extract import follow_extract as _tally_follow_extract',
    // A frame this one replaces is freed by the driver after the reply (driver.py release_retired).
    `_tally_retired = globals().get(${JSON.stringify(name)})`,
    `${name} = _tally_follow_extract(${JSON.stringify(`/inputs/${folder}`)}, ${Math.ceil(timeoutMs / 1000) + 60})`,
    `globals().setdefault("_tally_extracts", {})[${JSON.stringify(name)}] = ${name}.attrs["provenance"]`,
    `print(__import__("json").dumps([str(dtype) for dtype in ${name}.dtypes]))`,
  ].join('\n');
  const running: Promise<Execution | Error> = kernel
    .run(code, { timeoutMs: timeoutMs + DECODE_MARGIN_MS })
    .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  return {
    async finish(provenance) {
      const execution = await running;
      if (execution instanceof Error) throw execution;
      if (execution.error) {
        throw new ExtractFailedError(`${execution.error.name}: ${execution.error.value}`, { folder });
      }
      const dtypes = JSON.parse(execution.stdout.trim().split('\n').pop() ?? '[]') as string[];
      return provenance.columns.map((column, index) => ({ ...column, dtype: dtypes[index] ?? 'unknown' }));
    },
    async abandon() {
      await running;
    },
  };
}
