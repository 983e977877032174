-- release_handle.lua: a handle's gists are let go, each only if the player still holds it.
--
-- KEYS[1]  {handles}:ID        the first gist of the handle (ID: its digest)
-- KEYS[2]  {handles}:ID        (optional) its second gist
-- ARGV[1]  the player id that held them
--
-- Returns how many keys were deleted.

local deleted = 0
for _, key in ipairs(KEYS) do
  local held = redis.call('GET', key)
  if held and string.match(held, '^(%S+)') == ARGV[1] then
    deleted = deleted + redis.call('DEL', key)
  end
end
return deleted
