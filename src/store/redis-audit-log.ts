/**
 * The audit log on the store's Redis: a stream `<prefix>:audit` of entries `at, record, prev, hash`,
 * the last appended hash in `<prefix>:audit-head`, and `<prefix>:audit-anchor` (`hash`, `dropped`)
 * for the last expired record.
 *
 * Redis Lua has no sha256, so an append hashes in Node against the head it believes in, and a script
 * adds the entry only while the head is still that one (compare-and-set). When another replica got
 * there first, the script answers with the head it found and the append hashes again. Appends of one
 * instance go one at a time, so only replicas compete, never an instance with itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from '../base/errors.js';
import { chainHash, VERIFY_BATCH_SIZE, verifyTrail } from './audit-chain.js';
import { type AuditLog, type ChainCheck, GENESIS, type StoredAuditRecord } from './audit-log.js';
import { type RedisConnection, type StreamEntry, streamEntries } from './redis-client.js';

/** Runs one Redis call, turning a lost connection into StoreUnavailableError (the store's own wrapper). */
export type RedisCall = <T>(operation: () => Promise<T>) => Promise<T>;

/** Appends that lose the race this many times in a row give up; each loss means another append landed. */
const APPEND_ATTEMPTS = 50;
const DEFAULT_READ_LIMIT = 1_000;
/** Stream ids per XDEL call while expiring, well inside Lua's limit on unpacked values. */
const XDEL_CHUNK = 500;

/**
 * KEYS: stream, head, anchor. ARGV: expected prev, at, record, hash. Returns `{1, id}` once added, or
 * `{0, head}` with the head found when it is not the expected one (nothing is written then).
 */
const APPEND_SCRIPT = `
local head = redis.call('GET', KEYS[2])
if not head then head = redis.call('HGET', KEYS[3], 'hash') or '${GENESIS}' end
if head ~= ARGV[1] then return {0, head} end
local id = redis.call('XADD', KEYS[1], '*', 'at', ARGV[2], 'record', ARGV[3], 'prev', ARGV[1], 'hash', ARGV[4])
redis.call('SET', KEYS[2], ARGV[4])
return {1, id}
`;

/**
 * KEYS: stream, head, anchor. ARGV: count. What verifying starts from, read at one moment (a script runs alone, so an
 * expiry cannot come between the anchor and the first records): `{head, {anchor hash, dropped}, first entries}`.
 */
const SNAPSHOT_SCRIPT = `
return {redis.call('GET', KEYS[2]), redis.call('HMGET', KEYS[3], 'hash', 'dropped'), redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[1])}
`;

/**
 * KEYS: stream, anchor. ARGV: beforeMs, limit. Drops entries from the head while their `at` is before
 * `beforeMs`, at most `limit`, and moves the anchor to the last one dropped. Returns how many.
 */
const EXPIRE_SCRIPT = `
local entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[2])
local before = tonumber(ARGV[1])
local ids, last = {}, nil
for _, entry in ipairs(entries) do
  local at, hash
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'at' then at = tonumber(fields[i + 1]) elseif fields[i] == 'hash' then hash = fields[i + 1] end
  end
  if at == nil or hash == nil or at >= before then break end
  ids[#ids + 1] = entry[1]
  last = hash
end
if #ids == 0 then return 0 end
for i = 1, #ids, ${XDEL_CHUNK} do
  redis.call('XDEL', KEYS[1], unpack(ids, i, math.min(i + ${XDEL_CHUNK - 1}, #ids)))
end
redis.call('HSET', KEYS[2], 'hash', last)
redis.call('HINCRBY', KEYS[2], 'dropped', #ids)
return #ids
`;

export class RedisAuditLog implements AuditLog {
  private readonly keys: { stream: string; head: string; anchor: string };
  /** The head as last seen; a wrong guess costs one refused script call, which returns the right one. */
  private knownHead = GENESIS;
  private appending: Promise<unknown> = Promise.resolve();

  /** `client` is the store's connection; `call` is its wrapper for connection errors. */
  constructor(
    private readonly client: RedisConnection,
    prefix: string,
    private readonly call: RedisCall,
  ) {
    this.keys = { stream: `${prefix}:audit`, head: `${prefix}:audit-head`, anchor: `${prefix}:audit-anchor` };
  }

  append(text: string, atMs: number): Promise<string> {
    const appended = this.appending.then(() => this.appendNow(text, atMs));
    this.appending = appended.catch(() => {});
    return appended;
  }

  async read(options: { afterId?: string; limit?: number } = {}): Promise<StoredAuditRecord[]> {
    const limit = checkLimit(options.limit ?? DEFAULT_READ_LIMIT);
    const start = options.afterId === undefined ? '-' : `(${checkId(options.afterId)}`;
    if (limit === 0) return [];
    const entries = await this.call(() => this.client.xRange(this.keys.stream, start, '+', limit));
    return entries.map(toRecord);
  }

  async expire(beforeMs: number, limit: number): Promise<number> {
    if (checkLimit(limit) === 0) return 0;
    const reply = await this.call(() =>
      this.client.eval(EXPIRE_SCRIPT, {
        keys: [this.keys.stream, this.keys.anchor],
        arguments: [String(beforeMs), String(limit)],
      }),
    );
    return Number(reply);
  }

  verify(): Promise<ChainCheck> {
    return verifyTrail(
      async () => {
        const [head, anchor, first] = (await this.call(() =>
          this.client.eval(SNAPSHOT_SCRIPT, {
            keys: [this.keys.stream, this.keys.head, this.keys.anchor],
            arguments: [String(VERIFY_BATCH_SIZE)],
          }),
        )) as [string | null, Array<string | null> | null, unknown];
        const [anchorHash, dropped] = (anchor ?? []) as Array<string | null>;
        const last = typeof head === 'string' && head !== anchorHash ? head : undefined;
        return {
          anchorHash: anchorHash ?? GENESIS,
          dropped: Number(dropped ?? 0),
          first: streamEntries(first).map(toRecord),
          ...(last === undefined ? {} : { isLast: (record: StoredAuditRecord) => record.hash === last }),
        };
      },
      (options) => this.read(options),
    );
  }

  private async appendNow(text: string, atMs: number): Promise<string> {
    for (let attempt = 1; attempt <= APPEND_ATTEMPTS; attempt += 1) {
      const prev = this.knownHead;
      const hash = chainHash(prev, text);
      const reply = await this.call(() =>
        this.client.eval(APPEND_SCRIPT, {
          keys: [this.keys.stream, this.keys.head, this.keys.anchor],
          arguments: [prev, String(atMs), text, hash],
        }),
      );
      const [added, value] = reply as [number, string];
      if (added === 1) {
        this.knownHead = hash;
        return value;
      }
      this.knownHead = value;
      // The first refusal is usually a stale guess; from the second on, another replica keeps winning.
      if (attempt > 1) await sleep(Math.random() * Math.min(attempt, 10));
    }
    throw new StoreUnavailableError(
      this.client.location,
      `an audit record lost the race to other replicas ${APPEND_ATTEMPTS} times in a row`,
    );
  }
}

/** A stream entry as a record; a missing field reads as empty, so the check names the record. */
function toRecord({ id, message }: StreamEntry): StoredAuditRecord {
  return {
    id,
    atMs: Number(message.at),
    text: message.record ?? '',
    prev: message.prev ?? '',
    hash: message.hash ?? '',
  };
}

function checkId(id: string): string {
  if (!/^\d+-\d+$/.test(id)) throw new RangeError(`not an audit record id: '${id}'`);
  return id;
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number ≥ 0, got ${limit}`);
  return limit;
}
