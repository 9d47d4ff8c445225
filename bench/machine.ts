/** Where the numbers were taken: they only compare within one run on one machine. */
import { cpus, release, totalmem } from 'node:os';
import type Docker from 'dockerode';

export interface MachineInfo {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  totalMemoryMib: number;
  dockerServerVersion: string;
  cgroupVersion: string;
}

export async function machineInfo(docker: Docker): Promise<MachineInfo> {
  const [version, info] = await Promise.all([docker.version(), docker.info() as Promise<{ CgroupVersion?: string }>]);
  return {
    node: process.version,
    platform: `${process.platform} ${release()} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    totalMemoryMib: Math.round(totalmem() / 1024 / 1024),
    dockerServerVersion: version.Version,
    cgroupVersion: info.CgroupVersion ?? 'unknown',
  };
}
