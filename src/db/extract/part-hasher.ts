/**
 * The SHA-256 of an extract's parts, in order, computed in one shared worker thread (hash-worker.js)
 * so that hashing a few hundred MiB does not hold up reading the next rows. Each part reaches the
 * worker without a copy (shared memory is read in place, any other buffer is moved there and back);
 * the digest is the same as hashing the parts in order here.
 */
import { Worker } from 'node:worker_threads';

type Reply = { op: 'updated'; id: number; data?: Uint8Array } | { op: 'digest'; id: number; hex: string };
type Waiting = { resolve: (reply: Reply) => void; reject: (error: Error) => void };

let worker: Worker | undefined;
let nextId = 1;
/** Replies come in the order of the requests, per hash. */
const waiting = new Map<number, Waiting[]>();

function hashWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL('./hash-worker.js', import.meta.url));
  started.on('message', (reply: Reply) => waiting.get(reply.id)?.shift()?.resolve(reply));
  started.on('error', (error) => {
    worker = undefined;
    for (const queue of waiting.values()) for (const entry of queue.splice(0)) entry.reject(error);
  });
  started.unref();
  worker = started;
  return started;
}

export class PartHasher {
  private readonly id = nextId++;

  /** Hashes `data` next; resolves with the same bytes (moved back from the worker) once hashed. */
  update(data: Buffer): Promise<Buffer> {
    // Shared memory is read in place. Otherwise a buffer sharing its memory (Node's pool of small
    // buffers) is copied, and one of its own is moved.
    const shared = data.buffer instanceof SharedArrayBuffer;
    const owned = !shared && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    return this.ask({ op: 'update', id: this.id, data }, owned ? [data.buffer as ArrayBuffer] : []).then((reply) => {
      const back = (reply as Extract<Reply, { op: 'updated' }>).data;
      return owned && back ? Buffer.from(back.buffer, back.byteOffset, back.byteLength) : data;
    });
  }

  async digest(): Promise<string> {
    const reply = await this.ask({ op: 'digest', id: this.id }, []);
    waiting.delete(this.id);
    return (reply as Extract<Reply, { op: 'digest' }>).hex;
  }

  private ask(message: Record<string, unknown>, transfer: ArrayBuffer[]): Promise<Reply> {
    const target = hashWorker();
    return new Promise((resolve, reject) => {
      const queue = waiting.get(this.id) ?? [];
      queue.push({ resolve, reject });
      waiting.set(this.id, queue);
      target.postMessage(message, transfer);
    });
  }
}
