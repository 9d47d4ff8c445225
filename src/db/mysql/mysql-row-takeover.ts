/**
 * Takes a running query's rows off mysql2's hands. From the socket's next read on, its bytes go to
 * a RowFramer instead of mysql2's packet parser, so a row costs one call instead of mysql2's packet,
 * command and event machinery (a third of the driver's time per row). mysql2 gets the socket back
 * at the first packet that is not a plain row (the end of the rows, an error, a row spanning
 * packets), with its parser reset and its sequence id where it would have been, and finishes the
 * query as usual. Rows that arrived in the same read as the column definitions are still mysql2's
 * to parse (mysql-rows.ts replaces its row parser for those).
 *
 * This leans on mysql2's internals (its stream's one 'data' listener, its packet parser's state);
 * a connection that does not look as expected (compression, TLS set-up in progress, another
 * listener) is left alone and the rows go through mysql2.
 */
import type { Connection } from 'mysql2';
import type { RowPacket } from '../extract/mysql-text-columns.js';
import { RowFramer } from '../extract/row-framer.js';

type DataListener = (chunk: Buffer) => void;

interface PacketParser {
  execute: unknown;
  buffer: Buffer[];
  bufferLength: number;
  length: number;
  largePacketParts: Buffer[];
}

interface ConnectionInternals {
  stream?: NodeJS.EventEmitter;
  packetParser?: PacketParser;
  sequenceId: number;
  config?: { compress?: boolean };
}

/** Starts reading rows with `onRow`; returns what gives the socket back (call it when the query ends), or undefined when mysql2 keeps it. */
export function takeOverRows(connection: Connection, onRow: (row: RowPacket) => void): (() => void) | undefined {
  const internals = connection as unknown as ConnectionInternals;
  const { stream, packetParser } = internals;
  const listeners = stream?.listeners('data') ?? [];
  if (!stream || !packetParser || internals.config?.compress || listeners.length !== 1) return undefined;
  const driverListener = listeners[0] as DataListener;
  const framer = new RowFramer(onRow);
  let first = true;
  let active = true;

  const giveBack = () => {
    if (!active) return;
    active = false;
    stream.off('data', ours);
    stream.on('data', driverListener);
  };
  function ours(chunk: Buffer): void {
    if (first) {
      first = false;
      const pending = takeParserState(packetParser as PacketParser);
      if (pending === undefined) {
        giveBack();
        driverListener(chunk);
        return;
      }
      framer.prepend(pending);
    }
    const rest = framer.push(chunk);
    if (rest === undefined) return;
    giveBack();
    internals.sequenceId = rest[3] as number; // `rest` starts with the header of the packet mysql2 reads next
    driverListener(rest);
  }

  stream.off('data', driverListener);
  stream.on('data', ours);
  return giveBack;
}

/**
 * The bytes of a packet mysql2's parser has begun but not finished, as they came off the socket,
 * with the parser reset to expect a new packet; undefined when its state is not one we know.
 */
function takeParserState(parser: PacketParser): Buffer | undefined {
  const steps = Object.getPrototypeOf(parser) as Record<string, unknown>;
  if (parser.largePacketParts.length > 0) return undefined;
  let pending: Buffer;
  if (parser.execute === steps.executeStart) pending = Buffer.alloc(0);
  else if (parser.execute === steps.executeHeader2) pending = Buffer.of(parser.length & 0xff);
  else if (parser.execute === steps.executeHeader3)
    pending = Buffer.of(parser.length & 0xff, (parser.length >> 8) & 0xff);
  else if (parser.execute === steps.executePayload) {
    // Its buffer holds what followed the 3 length bytes: the sequence id and the payload so far.
    const length = Buffer.alloc(3);
    length.writeUIntLE(parser.length, 0, 3);
    pending = Buffer.concat([length, ...parser.buffer]);
  } else return undefined;
  parser.buffer = [];
  parser.bufferLength = 0;
  parser.execute = steps.executeStart;
  return pending;
}
