-- claim_room.lua: count a room among a player's unfinished rooms, unless that would pass a limit.
--
-- KEYS[1]  player-rooms:ID     hash: room id -> "ai" (a room against the AI) or "people"
-- ARGV[1]  the room id
-- ARGV[2]  its kind: "ai" or "people"
-- ARGV[3]  most unfinished rooms a player may have
-- ARGV[4]  most of them against the AI
-- ARGV[5]  TTL of the hash (s): it outlives every room it names
--
-- Returns {status, ai_rooms}:
--   {"added", n}              counted now; n = AI rooms the player had before this one
--   {"held", n}               the room was counted already; nothing changed
--   {"too_many_rooms", n}     nothing changed
--   {"too_many_ai_rooms", n}  nothing changed

local kinds = redis.call('HVALS', KEYS[1])
local ai = 0
for _, kind in ipairs(kinds) do
  if kind == 'ai' then
    ai = ai + 1
  end
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return {'held', ai}
end
if #kinds >= tonumber(ARGV[3]) then
  return {'too_many_rooms', ai}
end
if ARGV[2] == 'ai' and ai >= tonumber(ARGV[4]) then
  return {'too_many_ai_rooms', ai}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {'added', ai}
