-- rated_cancel.lua: a player stops waiting for a rated quick match.
--
-- KEYS[1]  {ratedqueue}:waiting  hash: waiting player -> JSON room, rating, rd, at, name
-- ARGV[1]  the player id
--
-- Returns the room they waited in, or nil when they were not waiting (perhaps just paired).

local known = redis.call('HGET', KEYS[1], ARGV[1])
if not known then
  return false
end
redis.call('HDEL', KEYS[1], ARGV[1])
return cjson.decode(known).room
