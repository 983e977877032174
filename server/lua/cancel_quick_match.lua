-- cancel_quick_match.lua: take a waiting player out of the quick-match queue.
--
-- KEYS[1]  {quickmatch}:queue   waiting player ids, score = join time (unix ms)
-- KEYS[2]  {quickmatch}:rooms   hash: waiting player id -> the room they wait in
-- ARGV[1]  the player's id
--
-- Returns the room the player was waiting in, or nil if they were not waiting (for example
-- because another player has just been paired with them).

local removed = redis.call('ZREM', KEYS[1], ARGV[1])
local room = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if removed == 1 then
  return room or ''
end
return false
