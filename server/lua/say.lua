-- say.lua: spend one of a seat's quick messages, and publish it on the room's channel.
--
-- KEYS[1]  {room:ID}:talk:SEAT  the seat's allowance: hash tokens (float), at (ms)
-- KEYS[2]  {room:ID}:version    the room's version (the room must exist)
-- KEYS[3]  {room:ID}:channel    pub/sub channel (declared so the script stays cluster safe)
-- ARGV[1]  burst: quick messages a seat may send at once
-- ARGV[2]  one message comes back every this many milliseconds
-- ARGV[3]  published payload: "said:<seat>:" .. the encoded said frame
-- ARGV[4]  "SPUBLISH" (sharded pub/sub: a Redis Cluster) or "PUBLISH" (one Redis)
-- ARGV[5]  "1" to publish, "0" to spend the allowance only (a message dropped because one of
--          the two players blocked the other: spent alike, so the sender cannot tell)
--
-- A token bucket on Redis's clock, so every server process and every connection of the seat
-- spends from the same allowance. Returns {1, 0} when published (or dropped), {0, retry_ms} when the
-- allowance is spent (nothing published), {-1, 0} when there is no such room.

if redis.call('EXISTS', KEYS[2]) == 0 then
  return {-1, 0}
end
local burst = tonumber(ARGV[1])
local every = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
if now > at then
  tokens = math.min(burst, tokens + (now - at) / every)
end
if tokens < 1 then
  return {0, math.ceil((1 - tokens) * every)}
end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * every))
local publish = 'PUBLISH'
if ARGV[4] == 'SPUBLISH' then
  publish = 'SPUBLISH'
end
if ARGV[5] ~= '0' then
  redis.call(publish, KEYS[3], ARGV[3])
end
return {1, 0}
