/**
 * Lua scripts of the Redis store's lists: positions are for good, so a list keeps a base (how many items
 * were trimmed from its head) beside it, read in the same step as the list.
 */

/** KEYS: list, base; ARGV: item. Returns the item's position plus one. */
export const APPEND_SCRIPT = `
return redis.call('RPUSH', KEYS[1], ARGV[1]) + tonumber(redis.call('GET', KEYS[2]) or '0')
`;

/** KEYS: list, base; ARGV: from, limit (-1 for all). Positions before the base are gone. */
export const RANGE_SCRIPT = `
local start = math.max(tonumber(ARGV[1]) - tonumber(redis.call('GET', KEYS[2]) or '0'), 0)
local limit = tonumber(ARGV[2])
local stop = -1
if limit >= 0 then stop = start + limit - 1 end
return redis.call('LRANGE', KEYS[1], start, stop)
`;

/** KEYS: list, base; ARGV: before. Drops items before that position; returns how many. */
export const TRIM_SCRIPT = `
local base = tonumber(redis.call('GET', KEYS[2]) or '0')
local dropped = math.min(tonumber(ARGV[1]) - base, redis.call('LLEN', KEYS[1]))
if dropped <= 0 then return 0 end
redis.call('LTRIM', KEYS[1], dropped, -1)
redis.call('INCRBY', KEYS[2], dropped)
return dropped
`;
