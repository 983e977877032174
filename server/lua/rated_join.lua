-- rated_join.lua: an account holder waits for a rated quick match.
--
-- KEYS[1]  {ratedqueue}:waiting  hash: waiting player -> JSON room, rating, rd, at, name
-- ARGV[1]  the player id
-- ARGV[2]  their entry (JSON; its "at" is replaced by the time they join, ms)
-- ARGV[3]  the time they join (ms), or "" for the Redis server's TIME (what the server passes:
--          one clock for every process; a test passes its own)
--
-- Returns {"queued", room} or {"waiting", room} (waiting already, in that room).

local known = redis.call('HGET', KEYS[1], ARGV[1])
if known then
  return {'waiting', cjson.decode(known).room}
end
local entry = cjson.decode(ARGV[2])
if ARGV[3] and ARGV[3] ~= '' then
  entry.at = tonumber(ARGV[3])
else
  local t = redis.call('TIME')
  entry.at = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
return {'queued', entry.room}
