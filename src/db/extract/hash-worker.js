// @ts-check
/**
 * SHA-256 of an extract's bytes off the main thread, so hashing does not hold up reading the next
 * rows. One hash at a time per message stream; buffers arrive transferred and go back the same way,
 * except shared memory, which is read in place and stays where it is.
 * Plain JavaScript so it loads the same under tsx, vitest and compiled code.
 *
 * Messages in:  {op:'update', id, data} | {op:'digest', id}
 * Messages out: {op:'updated', id, data?} | {op:'digest', id, hex}
 */
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

/** @type {Map<number, import('node:crypto').Hash>} */
const hashes = new Map();

parentPort?.on('message', (message) => {
  let hash = hashes.get(message.id);
  if (!hash) {
    hash = createHash('sha256');
    hashes.set(message.id, hash);
  }
  if (message.op === 'update') {
    hash.update(message.data);
    if (message.data.buffer instanceof SharedArrayBuffer) {
      parentPort?.postMessage({ op: 'updated', id: message.id });
    } else {
      parentPort?.postMessage({ op: 'updated', id: message.id, data: message.data }, [message.data.buffer]);
    }
  } else if (message.op === 'digest') {
    hashes.delete(message.id);
    parentPort?.postMessage({ op: 'digest', id: message.id, hex: hash.digest('hex') });
  }
});
