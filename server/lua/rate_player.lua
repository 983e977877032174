-- rate_player.lua: apply one rated match's change to one player's rating, exactly once.
--
-- KEYS[1]  {rating:ID}:rating   hash: rating, rd, volatility, at (unix s), n
-- KEYS[2]  {rating:ID}:history  sorted set: rated room ids, score = when rated (ms)
-- KEYS[3]  {rating:ID}:entries  hash: rated room id -> its entry (JSON)
-- ARGV[1]  the room id
-- ARGV[2]  the n the change was computed from (compare-and-set)
-- ARGV[3]  new rating    ARGV[4] new rd    ARGV[5] new volatility    ARGV[6] now (unix s)
-- ARGV[7]  now (ms)      ARGV[8] the entry (JSON)    ARGV[9] history kept (entries)
-- ARGV[10] TTL of the keys (ms)
--
-- Returns {"done", entry} when the room was rated for this player already (nothing changes),
-- {"stale", n} when the rating moved on since it was read (compute again from it), or
-- {"applied", entry}.

local entry = redis.call('HGET', KEYS[3], ARGV[1])
if entry then
  return {'done', entry}
end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if n ~= tonumber(ARGV[2]) then
  return {'stale', tostring(n)}
end
redis.call('HSET', KEYS[1], 'rating', ARGV[3], 'rd', ARGV[4], 'volatility', ARGV[5],
  'at', ARGV[6], 'n', n + 1)
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[8])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[9])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
  redis.call('HDEL', KEYS[3], unpack(old))
end
for i = 1, 3 do
  redis.call('PEXPIRE', KEYS[i], ARGV[10])
end
return {'applied', ARGV[8]}
