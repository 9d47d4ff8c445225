/**
 * The host end of a reply's attachment (protocol v2, see kernel/outbox.py): when a result's payloads
 * are large, the driver writes them raw into one file in the kernel's outbox, named after the
 * request, and the reply points into it with `{"part": [offset, length]}` for stdout, stderr and
 * each figure's png. This reads the file (removing it) and puts each payload in its place: text
 * decoded from UTF-8, PNGs as bytes. What comes back looks like a reply with everything inline.
 */
import { isAscii } from 'node:buffer';
import { z } from 'zod';

/** Raised when a reply's attachment cannot be read or does not fit its reply; the cell's outcome is unknown. */
export class ReplyAttachmentError extends Error {}

/** Reads the named file of the kernel's outbox; it must hold exactly `bytes` bytes. */
export type TakeAttachment = (name: string, bytes: number) => Promise<Buffer>;

const REQUEST_ID = /^[0-9a-f]{32}$/;
const count = z.number().int().nonnegative();
const attachment = z.strictObject({ bytes: count });
const part = z.strictObject({ part: z.tuple([count, count]) });

export async function resolveAttachment(
  reply: Record<string, unknown>,
  take: TakeAttachment,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  if (reply.attachment === undefined) return reply;
  const declared = attachment.safeParse(reply.attachment);
  if (!declared.success) throw new ReplyAttachmentError('its attachment is malformed');
  const { bytes } = declared.data;
  if (bytes > maxBytes) throw new ReplyAttachmentError(`its attachment of ${bytes} bytes is over the reply limit`);
  const id = reply.id;
  if (typeof id !== 'string' || !REQUEST_ID.test(id)) throw new ReplyAttachmentError('it names no request');
  const data = await take(id, bytes).catch((error: unknown) => {
    throw new ReplyAttachmentError(`its attachment could not be read: ${String(error)}`, { cause: error });
  });
  const slice = (value: unknown, field: string): Buffer | undefined => {
    const pointer = part.safeParse(value);
    if (!pointer.success) return undefined;
    const [offset, length] = pointer.data.part;
    if (offset + length > data.length) throw new ReplyAttachmentError(`its ${field} lies outside the attachment`);
    return data.subarray(offset, offset + length);
  };
  const { attachment: _, ...resolved } = reply;
  for (const field of ['stdout', 'stderr'] as const) {
    const bytesOf = slice(resolved[field], field);
    // ASCII (most output) is copied as it is, about a third faster than decoding it as UTF-8.
    if (bytesOf) resolved[field] = bytesOf.toString(isAscii(bytesOf) ? 'latin1' : 'utf8');
  }
  if (Array.isArray(resolved.figures)) {
    resolved.figures = resolved.figures.map((figure: unknown, index) => {
      if (figure === null || typeof figure !== 'object') return figure;
      const png = slice((figure as Record<string, unknown>).png, `figure ${index + 1}`);
      // A copy, so a figure kept in a thread does not hold the whole attachment alive.
      return png ? { ...figure, png: Buffer.from(png) } : figure;
    });
  }
  return resolved;
}
