-- revoke_sessions.lua: sign out everywhere: every token of a player is revoked at once.
--
-- KEYS[1]  player:ID           the player hash
--
-- Returns how many tokens were revoked (token_hash and every session:HASH field).

local fields = redis.call('HKEYS', KEYS[1])
local revoked = 0
for _, field in ipairs(fields) do
  if field == 'token_hash' or string.sub(field, 1, 8) == 'session:' then
    revoked = revoked + redis.call('HDEL', KEYS[1], field)
  end
end
return revoked
