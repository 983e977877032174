-- quick_match.lua: pair a player with the oldest waiting player, or make them wait.
--
-- KEYS[1]  {quickmatch}:queue   waiting player ids, score = join time (unix ms)
-- KEYS[2]  {quickmatch}:rooms   hash: waiting player id -> the room they wait in
-- KEYS[3]  {quickmatch}:blocked set: BLOCKER:BLOCKED, pairs never made (either direction)
-- ARGV[1]  the joining player's id
-- ARGV[2]  the room the joining player will wait in if nobody is waiting
-- ARGV[3]  how many of the longest waiting players are looked at
--
-- Returns one of:
--   {"paired", opponent_id, opponent_room}   the opponent left the queue; join their room
--   {"queued", ARGV[2]}                      the player now waits in ARGV[2]
--   {"waiting", room}                        the player was already waiting, in room
-- A player is never paired with themselves, nor with a player either of them blocked (the
-- next longest waiting is taken instead), and is never queued twice.

local me = ARGV[1]
local function blocked(other)
  return redis.call('SISMEMBER', KEYS[3], me .. ':' .. other) == 1
    or redis.call('SISMEMBER', KEYS[3], other .. ':' .. me) == 1
end
for _, other in ipairs(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)) do
  if other ~= me and not blocked(other) then
    local room = redis.call('HGET', KEYS[2], other) or ''
    redis.call('ZREM', KEYS[1], other, me)
    redis.call('HDEL', KEYS[2], other, me)
    return {'paired', other, room}
  end
end

local waiting = redis.call('HGET', KEYS[2], me)
if waiting and redis.call('ZSCORE', KEYS[1], me) then
  return {'waiting', waiting}
end

local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), me)
redis.call('HSET', KEYS[2], me, ARGV[2])
return {'queued', ARGV[2]}
