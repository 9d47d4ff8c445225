/**
 * A dictionary of byte strings for a text column's chunk: the code of `bytes[start, end)`, new or
 * known, found by hashing the bytes in place (FNV-1a, open addressing), so a repeated value costs no
 * string and no Map lookup. Entries keep their bytes, in code order, for the JSON written at the end.
 */
import { ByteSink } from './column-bytes.js';

export class ByteDictionary {
  /** Entry bytes back to back; entry `code` spans starts[code] .. starts[code + 1]. */
  readonly bytes = new ByteSink();
  private starts = new Int32Array(1024 + 1);
  /** Slots hold code + 1; 0 is empty. */
  private slots = new Int32Array(2048);
  private hashes = new Int32Array(1024);
  size = 0;

  /** The code of these bytes, adding them when new. */
  codeOf(source: Uint8Array, start: number, end: number): number {
    let hash = 0x811c9dc5;
    for (let at = start; at < end; at++) hash = Math.imul(hash ^ (source[at] as number), 16777619);
    hash |= 0; // as Int32Array holds it, also for no bytes at all
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (true) {
      const held = this.slots[slot] as number;
      if (held === 0) break;
      const code = held - 1;
      if (this.hashes[code] === hash && this.equals(code, source, start, end)) return code;
      slot = (slot + 1) & mask;
    }
    const code = this.size;
    this.add(hash, source, start, end);
    this.slots[slot] = code + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
    return code;
  }

  /** Entry `code`'s bytes as [start, end) in `this.bytes.buffer`. */
  start(code: number): number {
    return this.starts[code] as number;
  }

  end(code: number): number {
    return this.starts[code + 1] as number;
  }

  clear(): void {
    this.slots.fill(0);
    this.bytes.length = 0;
    this.size = 0;
  }

  private equals(code: number, source: Uint8Array, start: number, end: number): boolean {
    const from = this.starts[code] as number;
    if ((this.starts[code + 1] as number) - from !== end - start) return false;
    const held = this.bytes.buffer;
    for (let at = 0; at < end - start; at++) if (held[from + at] !== source[start + at]) return false;
    return true;
  }

  private add(hash: number, source: Uint8Array, start: number, end: number): void {
    if (this.size + 2 > this.starts.length) {
      const starts = new Int32Array(this.starts.length * 2);
      starts.set(this.starts);
      this.starts = starts;
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    const sink = this.bytes;
    sink.ensure(end - start);
    sink.buffer.set(source.subarray(start, end), sink.length);
    sink.length += end - start;
    this.hashes[this.size] = hash;
    this.size += 1;
    this.starts[this.size] = sink.length;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let code = 0; code < this.size; code++) {
      let slot = (this.hashes[code] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = code + 1;
    }
    this.slots = slots;
  }
}
