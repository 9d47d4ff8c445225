/** A container's stdin/stdout/stderr over one hijacked attach stream, demultiplexed (no TTY). */
import { type Duplex, PassThrough } from 'node:stream';
import type Docker from 'dockerode';

export interface AttachedStdio {
  /** Write here to reach the container's stdin; 'end'/'close' mean the process is gone. */
  stream: Duplex;
  stdout: PassThrough;
  stderr: PassThrough;
}

/** Attach before `start()` so no early output is missed. */
export async function attachStdio(container: Docker.Container, modem: Docker['modem']): Promise<AttachedStdio> {
  const stream = (await container.attach({
    stream: true,
    stdin: true,
    stdout: true,
    stderr: true,
    hijack: true,
  })) as Duplex;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  modem.demuxStream(stream, stdout, stderr);
  return { stream, stdout, stderr };
}
