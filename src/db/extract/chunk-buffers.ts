/**
 * Reused memory for encoded chunks. A fresh 8 MiB buffer per chunk had its pages faulted in and
 * zeroed by the OS every time (16% of the read's CPU on a 100-column table); a chunk's buffer comes
 * back here once its part is written. The memory is shared, so the hash worker reads it in place.
 */

/** Buffers kept for reuse: the parts in flight, the one being hashed and the one being filled. */
const KEEP = 6;
const STEP = 1024 * 1024;
const free: SharedArrayBuffer[] = [];

/** `size` bytes, not zeroed: the caller writes every byte. */
export function chunkBuffer(size: number): Buffer {
  const index = free.findIndex((memory) => memory.byteLength >= size);
  const memory = index >= 0 ? (free.splice(index, 1)[0] as SharedArrayBuffer) : new SharedArrayBuffer(roundUp(size));
  return Buffer.from(memory, 0, size);
}

/** Gives back a buffer from chunkBuffer that nothing reads any more; any other buffer is ignored. */
export function releaseChunkBuffer(buffer: Buffer): void {
  if (!(buffer.buffer instanceof SharedArrayBuffer) || buffer.byteOffset !== 0) return;
  if (free.length >= KEEP || free.includes(buffer.buffer)) return;
  free.push(buffer.buffer);
}

function roundUp(size: number): number {
  return Math.max(STEP, Math.ceil(size / STEP) * STEP);
}
