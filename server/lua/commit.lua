-- commit.lua: compare-and-set one room change, append it to the stream, publish it.
--
-- KEYS[1]  {room:ID}:room       room blob (string)
-- KEYS[2]  {room:ID}:version    room version (string holding an integer)
-- KEYS[3]  {room:ID}:events     change stream; entry id "<seq>-1", fields seq, change
-- KEYS[4]  {room:ID}:requests   applied request keys: sorted set, score = expiry (unix ms);
--                               scores rise in the order the keys come; the newest ARGV[9]
-- KEYS[5]  {room:ID}:channel    pub/sub channel (declared so the script stays cluster safe)
-- ARGV[1]  expected version (the version the change was computed from)
-- ARGV[2]  new room blob
-- ARGV[3]  change blob
-- ARGV[4]  request key, or "" for none
-- ARGV[5]  how long a request key is remembered, in milliseconds
-- ARGV[6]  approximate maximum length of the change stream (MAXLEN ~)
-- ARGV[7]  the room's TTL (ms) from now: every change pushes the room's expiry forward, so a
--          room expires after that long with no change, never while it is played
-- ARGV[8]  "SPUBLISH" (sharded pub/sub: a Redis Cluster) or "PUBLISH" (one Redis)
-- ARGV[9]  how many request keys are remembered at most (the newest)
-- ARGV[10] the change stream's TTL (ms) from now: the room's (ARGV[7]) while the match is on;
--          shorter once it is over (the hands have their records; a later resume gets a
--          snapshot)
--
-- Returns {status, version}:
--   {"ok", new_version}        stored, appended, published; new_version = expected + 1
--   {"duplicate", version}     the request key was already applied; nothing changed
--   {"stale", version}         the stored version is not ARGV[1]; nothing changed
--   {"missing", -1}            there is no such room; nothing changed
--
-- Published payload (bytes): "<seq>:<len(change)>:" .. change .. new_blob, where <seq> and
-- <len(change)> are decimal ASCII. The failing command (XADD, if the stream's last id is
-- somehow ahead) runs before any other write, so an error leaves the room untouched.

local version = redis.call('GET', KEYS[2])
if not version then
  return {'missing', -1}
end
version = tonumber(version)

local request = ARGV[4]
local now_ms = 0
if request ~= '' then
  local t = redis.call('TIME')
  now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now_ms)
  if redis.call('ZSCORE', KEYS[4], request) then
    return {'duplicate', version}
  end
end

if version ~= tonumber(ARGV[1]) then
  return {'stale', version}
end

local seq = version + 1
local change = ARGV[3]
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], seq .. '-1', 'seq', seq, 'change', change)
redis.call('PEXPIRE', KEYS[3], ARGV[10])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[7])
redis.call('SET', KEYS[2], seq, 'PX', ARGV[7])
if request ~= '' then
  local ttl = tonumber(ARGV[5])
  -- Scores rise with every key, so that the cap drops the oldest, never the one just added:
  -- a key applied in the same millisecond as the last (or after a clock step back, or in a
  -- set scored by a longer window: an hour before 2026-12) ends one ms after it.
  local score = now_ms + ttl
  local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
  if last[2] and tonumber(last[2]) >= score then
    score = tonumber(last[2]) + 1
  end
  -- Room for one more first: a set never longer than the cap keeps its compact encoding.
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -tonumber(ARGV[9]))
  redis.call('ZADD', KEYS[4], score, request)
  redis.call('PEXPIRE', KEYS[4], ttl)
end
local publish = 'PUBLISH'
if ARGV[8] == 'SPUBLISH' then
  publish = 'SPUBLISH'
end
redis.call(publish, KEYS[5], seq .. ':' .. #change .. ':' .. change .. ARGV[2])
return {'ok', seq}
