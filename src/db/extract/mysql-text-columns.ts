/**
 * Reads MySQL text-protocol row packets straight into column builders: each value's bytes go to its
 * column without a JavaScript row or value in between, and every `chunkRows` rows (fewer for wide
 * rows, so a chunk stays near `CHUNK_BYTES`) the columns are packed into one encoded chunk.
 */
import { ColumnChunks } from './column-chunks.js';

/** What mysql2 hands a row parser: the packet's buffer and where the row's payload lies in it. */
export interface RowPacket {
  buffer: Buffer;
  offset: number;
  end: number;
}

export class MysqlTextColumns extends ColumnChunks {
  /** Adds one row; true when the chunk is full and should be taken. */
  add(packet: RowPacket): boolean {
    const { buffer, end } = packet;
    let offset = packet.offset;
    for (const builder of this.builders) {
      const first = buffer[offset] as number;
      if (first === 0xfb) {
        builder.pushNull();
        offset += 1;
        continue;
      }
      let length: number;
      if (first < 0xfb) {
        length = first;
        offset += 1;
      } else if (first === 0xfc) {
        length = buffer.readUInt16LE(offset + 1);
        offset += 3;
      } else if (first === 0xfd) {
        length = buffer.readUIntLE(offset + 1, 3);
        offset += 4;
      } else {
        length = buffer.readUInt32LE(offset + 1) + buffer.readUInt32LE(offset + 5) * 2 ** 32;
        offset += 9;
      }
      if (offset + length > end) throw new Error('a MySQL row packet ended inside a value');
      builder.push(buffer, offset, offset + length);
      offset += length;
    }
    return this.rowDone();
  }
}
