-- claim_handle.lua: an account takes a handle: every gist of it at once, or none.
--
-- KEYS[1]  {handles}:ID        the first gist of the handle (ID: its digest)
-- KEYS[2]  {handles}:ID        (optional) its second gist
-- ARGV[1]  the claiming player id
-- ARGV[2]  now (ms)
-- ARGV[3]  a holder's player id that the caller found stale (its claim is taken over), or ''
--
-- Returns {1, ''} if claimed (or the player held it already), {0, HOLDER} if another player
-- holds a gist (nothing changed).

for _, key in ipairs(KEYS) do
  local held = redis.call('GET', key)
  if held then
    local holder = string.match(held, '^(%S+)')
    if holder ~= ARGV[1] and holder ~= ARGV[3] then
      return {0, holder}
    end
  end
end
for _, key in ipairs(KEYS) do
  redis.call('SET', key, ARGV[1] .. ' ' .. ARGV[2])
end
return {1, ''}
