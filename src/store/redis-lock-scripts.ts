/**
 * Lua run atomically by Redis for the lock at KEYS[1]. Acquiring is fair across replicas: each
 * replica's head waiter is recorded in the hash KEYS[2] (token -> `arrival:lastSeen`, server time in
 * ms) and a free lock goes to the waiter that arrived first, so a replica that hands the lock from
 * one local task to the next cannot starve another replica. A waiter that stops polling (it gave up
 * or its process died) is forgotten after STALE_WAITER_MS.
 */

/** Far longer than a waiter's poll interval (at most 100 ms), so only a gone waiter goes stale. */
export const STALE_WAITER_MS = 2_000;

/** ARGV: token, ttlMs, staleMs. Returns 1 when `token` now owns the lock, 0 when it waits. */
export const ACQUIRE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local token, stale = ARGV[1], tonumber(ARGV[3])
local arrival = now
local mine = redis.call('HGET', KEYS[2], token)
if mine then arrival = tonumber(string.match(mine, '^(%d+)')) end
if redis.call('EXISTS', KEYS[1]) == 0 then
  local first = true
  local entries = redis.call('HGETALL', KEYS[2])
  for i = 1, #entries, 2 do
    if entries[i] ~= token then
      local since, seen = string.match(entries[i + 1], '^(%d+):(%d+)$')
      if tonumber(seen) < now - stale then
        redis.call('HDEL', KEYS[2], entries[i])
      elseif tonumber(since) < arrival then
        first = false
      end
    end
  end
  if first then
    redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
    redis.call('HDEL', KEYS[2], token)
    return 1
  end
end
redis.call('HSET', KEYS[2], token, string.format('%d:%d', arrival, now))
redis.call('PEXPIRE', KEYS[2], stale * 2)
return 0
`;

/** ARGV: token, ttlMs. Returns 1 when the lock was still `token`'s and now lives ttlMs longer. */
export const EXTEND_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** ARGV: token. Deletes the lock only while it is still `token`'s. */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
