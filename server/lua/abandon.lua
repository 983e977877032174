-- abandon.lua: a player walked out of a rated match: note it (once per room), and from the
-- second within a day give them a cooldown on the rated queue (lichess's playban shape).
--
-- KEYS[1]  {playban:ID}:abandons  sorted set: rated rooms walked out of, score = when (ms)
-- KEYS[2]  {playban:ID}:ban       hash: bans (cooldowns given), until (ms)
-- ARGV[1]  the room id
-- ARGV[2]  now (ms)
-- ARGV[3]  a day (ms): the window in which a second abandonment earns a cooldown
-- ARGV[4]  a week (ms): forgiven after this long without an abandonment (by ARGV[2]; the
--          keys' TTL too, so they go)
-- ARGV[5]  the first cooldown (ms)    ARGV[6] each next one is this many times longer
-- ARGV[7]  the longest cooldown (ms)
--
-- Returns {until, bans}: when the cooldown ends (ms, 0 for none) and how many were given.

local now = tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  -- A week (or more) since the last one, by ``now``, not by the keys' TTL: all forgiven.
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
  if redis.call('ZCARD', KEYS[1]) == 0 then
    redis.call('DEL', KEYS[2])
  end
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  local recent = redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[3]), '+inf')
  if recent >= 2 then
    local bans = redis.call('HINCRBY', KEYS[2], 'bans', 1)
    local length = math.min(tonumber(ARGV[5]) * tonumber(ARGV[6]) ^ (bans - 1), tonumber(ARGV[7]))
    local current = tonumber(redis.call('HGET', KEYS[2], 'until') or '0')
    redis.call('HSET', KEYS[2], 'until', string.format('%d', math.max(current, now + length)))
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  end
end
return {tonumber(redis.call('HGET', KEYS[2], 'until') or '0'),
  tonumber(redis.call('HGET', KEYS[2], 'bans') or '0')}
