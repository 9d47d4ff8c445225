import { describe, expect, it } from 'vitest';
import { ReplyAttachmentError, resolveAttachment } from '../../sandbox/reply-attachment.js';

const id = 'ab'.repeat(16);
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
const output = Buffer.from('héllo\n', 'utf8');
const file = Buffer.concat([output, png]);

function taker(data: Buffer = file) {
  const taken: Array<[string, number]> = [];
  const take = async (name: string, bytes: number) => {
    taken.push([name, bytes]);
    return data;
  };
  return { take, taken };
}

const reply = {
  v: 2,
  type: 'result',
  id,
  attachment: { bytes: file.length },
  stdout: { part: [0, output.length] },
  stdoutBytes: output.length,
  figures: [{ png: { part: [output.length, png.length] }, width: 4, height: 3 }],
};

describe('resolveAttachment', () => {
  it('leaves a reply without an attachment as it is, reading nothing', async () => {
    const { take, taken } = taker();
    const inline = { v: 2, type: 'result', id, stdout: 'hi' };
    expect(await resolveAttachment(inline, take, 1024)).toBe(inline);
    expect(taken).toEqual([]);
  });

  it('reads the file named after the request and puts each payload in its place', async () => {
    const { take, taken } = taker();
    const resolved = await resolveAttachment(reply, take, 1024);
    expect(taken).toEqual([[id, file.length]]);
    expect(resolved.attachment).toBeUndefined();
    expect(resolved.stdout).toBe('héllo\n');
    const [figure] = resolved.figures as Array<{ png: Buffer; width: number }>;
    expect(figure?.png.equals(png)).toBe(true);
    expect(figure?.width).toBe(4);
  });

  it.each([
    ['a malformed attachment', { attachment: { bytes: -1 } }],
    ['an attachment over the reply limit', { attachment: { bytes: 4096 } }],
    ['a part outside the file', { stdout: { part: [2, file.length] } }],
    ['an id that is not a request id', { id: '../work/secret' }],
  ])('refuses %s', async (_, fields) => {
    const { take } = taker();
    await expect(resolveAttachment({ ...reply, ...fields }, take, 1024)).rejects.toBeInstanceOf(ReplyAttachmentError);
  });

  it('says so when the file cannot be read', async () => {
    const take = async () => {
      throw new Error('it is a link');
    };
    await expect(resolveAttachment(reply, take, 1024)).rejects.toThrow(/could not be read: Error: it is a link/);
  });
});
