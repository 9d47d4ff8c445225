/**
 * Frames a text-protocol result set's row packets out of the socket's bytes: a 4-byte header (3
 * bytes of length, 1 of sequence id), then the row. Each row is handed over in place, in the
 * buffer it arrived in; only a row split across two reads is copied, once. Framing stops at the
 * first packet that is not a plain row (the end of the rows, an error, or a row of 16 MiB or more,
 * which spans several packets): that packet and everything after it are given back for the driver.
 */
import type { RowPacket } from './mysql-text-columns.js';

const HEADER = 4;
/** A payload this long continues in the next packet. */
const MAX_PAYLOAD = 0xffffff;

export class RowFramer {
  /** The start of a packet whose end has not arrived yet, in the pieces it came in. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** One object for every row, as mysql2 does: rows are read before the next one is framed. */
  private readonly row: RowPacket = { buffer: Buffer.alloc(0), offset: 0, end: 0 };

  constructor(private readonly onRow: (row: RowPacket) => void) {}

  /** Bytes left over from before (the driver's partial packet), read before the next chunk. */
  prepend(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.pending.unshift(bytes);
    this.pendingBytes += bytes.length;
  }

  /**
   * Frames the rows in `chunk`; returns undefined while rows go on, or the bytes from the first
   * packet that is not a row to the end of the chunk.
   */
  push(chunk: Buffer): Buffer | undefined {
    let at = 0;
    if (this.pendingBytes > 0) {
      const joined = this.completePending(chunk);
      if (joined === undefined) return undefined; // still not a whole packet
      const rest = this.frame(joined.packet, 0);
      if (rest !== undefined) return Buffer.concat([rest, chunk.subarray(joined.used)]);
      at = joined.used;
    }
    return this.frame(chunk, at);
  }

  /** Frames whole packets from `at`; keeps a trailing partial one as pending. */
  private frame(data: Buffer, start: number): Buffer | undefined {
    let at = start;
    const row = this.row;
    while (data.length - at >= HEADER) {
      const length = (data[at] as number) | ((data[at + 1] as number) << 8) | ((data[at + 2] as number) << 16);
      if (data.length - at < HEADER + length) break;
      const first = data[at + HEADER];
      if (length === MAX_PAYLOAD || first === 0xff || (first === 0xfe && length < 13)) return data.subarray(at);
      row.buffer = data;
      row.offset = at + HEADER;
      row.end = at + HEADER + length;
      this.onRow(row);
      at += HEADER + length;
    }
    if (at < data.length) this.keep(data.subarray(at));
    return undefined;
  }

  /** The pending packet made whole with the start of `chunk`, and how much of `chunk` that took. */
  private completePending(chunk: Buffer): { packet: Buffer; used: number } | undefined {
    if (this.pendingBytes + chunk.length < HEADER) {
      this.keep(chunk);
      return undefined;
    }
    // The header itself may be split between the two.
    const byte = (index: number) =>
      index < this.pendingBytes ? this.pendingByte(index) : chunk[index - this.pendingBytes];
    const length = (byte(0) as number) | ((byte(1) as number) << 8) | ((byte(2) as number) << 16);
    const used = HEADER + length - this.pendingBytes;
    if (used > chunk.length) {
      this.keep(chunk);
      return undefined;
    }
    const packet = Buffer.concat([...this.pending, chunk.subarray(0, used)]);
    this.pending = [];
    this.pendingBytes = 0;
    return { packet, used };
  }

  private keep(bytes: Buffer): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private pendingByte(index: number): number | undefined {
    let at = index;
    for (const piece of this.pending) {
      if (at < piece.length) return piece[at];
      at -= piece.length;
    }
    return undefined;
  }
}
