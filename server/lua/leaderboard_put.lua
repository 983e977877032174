-- leaderboard_put.lua: put a player's rating on the leaderboard (or take it off).
--
-- KEYS[1]  {leaderboard}:ratings  sorted set: players, score = rating
-- KEYS[2]  {leaderboard}:until    sorted set: players, score = when they leave the board (ms)
-- KEYS[3]  {leaderboard}:n        hash: player -> the n of the rating on the board
-- ARGV[1]  the player id
-- ARGV[2]  the n of this rating (its rated matches)
-- ARGV[3]  the rating
-- ARGV[4]  when the player leaves the board (ms); 0: not on it (provisional)
--
-- An older rating (a lower or equal n) never replaces a newer one. Returns 1 if written.

local known = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '-1')
if known >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
if tonumber(ARGV[4]) <= 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
return 1
