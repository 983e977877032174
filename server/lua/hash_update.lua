-- hash_update.lua: set fields of a hash only if the hash exists.
--
-- KEYS[1]  the hash
-- ARGV     field1, value1, field2, value2, ... (at least one pair)
--
-- Returns 1 if the fields were set, 0 if there is no such hash (nothing changed).

if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
