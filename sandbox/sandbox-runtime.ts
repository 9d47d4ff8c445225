/**
 * Which container runtime kernels run under. gVisor's `runsc` puts a user-space kernel between the model's code and
 * the host's: a cell's system calls are served by gVisor, so a bug in the host kernel is not one system call away
 * from code the model wrote. `auto` takes it when the engine has it registered, else `runc` with a warning that
 * says how to get it; a runtime named outright must be there (Kata or any other an operator registers works so).
 */
import type Docker from 'dockerode';
import { SandboxRuntimeMissingError } from '../src/base/errors.js';

export interface ResolvedRuntime {
  /** The runtime's name as the engine lists it. */
  name: string;
  /** Said once at start-up when `auto` fell back to runc. */
  warning?: string;
}

export const RUNSC_HINT =
  "install gVisor's runsc and register it with the engine (on Debian/Ubuntu as root, npm run setup does both; README: Isolation)";

export async function resolveRuntime(docker: Docker, setting: string): Promise<ResolvedRuntime> {
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown>; DefaultRuntime?: string };
  const listed = Object.keys(info.Runtimes ?? {});
  if (setting === 'auto') {
    if (listed.includes('runsc')) return { name: 'runsc' };
    return {
      name: 'runc',
      warning: `kernels run under runc, on the host's kernel: the engine has no gVisor runtime (runsc). To isolate them, ${RUNSC_HINT}, or set TALLY_SANDBOX_RUNTIME=runc to say this is intended.`,
    };
  }
  if (!listed.includes(setting)) throw new SandboxRuntimeMissingError(setting, listed);
  return { name: setting };
}
