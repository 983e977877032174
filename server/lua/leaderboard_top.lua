-- leaderboard_top.lua: the leaderboard's top, and one player's rank, after dropping the
-- players whose time on it is over.
--
-- KEYS[1]  {leaderboard}:ratings  sorted set: players, score = rating
-- KEYS[2]  {leaderboard}:until    sorted set: players, score = when they leave the board (ms)
-- KEYS[3]  {leaderboard}:n        hash: player -> the n of the rating on the board
-- ARGV[1]  now (ms)
-- ARGV[2]  how many of the top
-- ARGV[3]  the viewer's player id, or ''
--
-- Returns {top, rank, total}: top = {player, rating, ...} best first; rank = the viewer's
-- 0-based rank or -1; total = players on the board.

local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 1000)
while #gone > 0 do
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('HDEL', KEYS[3], unpack(gone))
  gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 1000)
end
local top = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
local rank = -1
if ARGV[3] ~= '' then
  rank = redis.call('ZREVRANK', KEYS[1], ARGV[3]) or -1
end
return {top, rank, redis.call('ZCARD', KEYS[1])}
