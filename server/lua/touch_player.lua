-- touch_player.lua: a player was seen: their record lives on, long if they ever finished a hand.
--
-- KEYS[1]  player:ID           the player hash
-- ARGV[1]  TTL (s) of a player who finished a hand (field stat:hands)
-- ARGV[2]  TTL (s) of a player who never did
--
-- Returns 1, or 0 if there is no such player. An account (field handle) is kept: no TTL.

if redis.call('HEXISTS', KEYS[1], 'handle') == 1 then
  redis.call('PERSIST', KEYS[1])
  return 1
end
if redis.call('HEXISTS', KEYS[1], 'stat:hands') == 1 then
  return redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return redis.call('EXPIRE', KEYS[1], ARGV[2])
