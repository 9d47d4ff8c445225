/**
 * A container's stdin/stdout/stderr over one hijacked attach stream, demultiplexed (no TTY).
 *
 * Docker frames each write as an 8-byte header (stream, 0, 0, 0, big-endian length) and the payload.
 * The demultiplexer here hands each payload on as views of the chunks it arrived in, copying only a
 * header split between chunks: dockerode's own joins and re-copies its buffer on every chunk and
 * every frame, which cost about as much as the rest of a 1 MB reply's path on the host.
 */
import { type Duplex, PassThrough } from 'node:stream';
import type Docker from 'dockerode';

export interface AttachedStdio {
  /** Write here to reach the container's stdin; 'end'/'close' mean the process is gone. */
  stream: Duplex;
  stdout: PassThrough;
  stderr: PassThrough;
}

const HEADER_BYTES = 8;
const STDERR = 2;

/** Attach before `start()` so no early output is missed. */
export async function attachStdio(container: Docker.Container): Promise<AttachedStdio> {
  const stream = (await container.attach({
    stream: true,
    stdin: true,
    stdout: true,
    stderr: true,
    hijack: true,
  })) as Duplex;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stream.on('data', demultiplexer(stdout, stderr));
  return { stream, stdout, stderr };
}

/** A 'data' listener that splits Docker's frames into the two streams (stdin frames go to stdout, as dockerode does). */
export function demultiplexer(stdout: PassThrough, stderr: PassThrough): (chunk: Buffer) => void {
  const header = Buffer.alloc(HEADER_BYTES);
  let headerBytes = 0;
  let remaining = 0;
  let target = stdout;
  return (chunk) => {
    let offset = 0;
    while (offset < chunk.length) {
      if (remaining === 0) {
        const take = Math.min(HEADER_BYTES - headerBytes, chunk.length - offset);
        chunk.copy(header, headerBytes, offset, offset + take);
        headerBytes += take;
        offset += take;
        if (headerBytes < HEADER_BYTES) return;
        headerBytes = 0;
        target = header[0] === STDERR ? stderr : stdout;
        remaining = header.readUInt32BE(4);
        continue;
      }
      const end = Math.min(chunk.length, offset + remaining);
      target.write(chunk.subarray(offset, end));
      remaining -= end - offset;
      offset = end;
    }
  };
}
