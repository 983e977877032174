-- count_new_player.lua: count one new player from a client address, unless the address made
-- its quota this minute. (Also any count within a window: the sign-in attempts of an address
-- or an account, signin-address:ADDR and signin-account:ID.)
--
-- KEYS[1]  new-players:ADDR    players created from the address in the current window
-- ARGV[1]  most new players per window
-- ARGV[2]  the window (s): the counter expires this long after its first count
--
-- Returns 1 if counted (the player may be created), 0 if the quota is used up (nothing changed).

local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  return 0
end
if redis.call('INCR', KEYS[1]) == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 1
