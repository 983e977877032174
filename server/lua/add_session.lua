-- add_session.lua: a new token of a player (sign-in, claim), the oldest dropped past the cap.
--
-- KEYS[1]  player:ID           the player hash
-- ARGV[1]  the new field (session:HASH)
-- ARGV[2]  now (ms)
-- ARGV[3]  most sessions a player keeps
-- ARGV[4]  a field to remove with it (the token being rotated: token_hash or session:HASH), or ''
--
-- Returns 1, or 0 if there is no such player (nothing changed).

if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if ARGV[4] ~= '' then
  redis.call('HDEL', KEYS[1], ARGV[4])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local sessions = {}
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 8) == 'session:' then
    table.insert(sessions, {fields[i], tonumber(fields[i + 1])})
  end
end
local extra = #sessions - tonumber(ARGV[3])
if extra > 0 then
  table.sort(sessions, function(a, b) return a[2] < b[2] end)
  for i = 1, extra do
    redis.call('HDEL', KEYS[1], sessions[i][1])
  end
end
return 1
