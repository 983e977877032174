-- hash_create.lua: create a hash with the given fields unless the key already exists.
--
-- KEYS[1]  the hash
-- ARGV     field1, value1, field2, value2, ... (at least one pair)
--
-- Returns 1 if the hash was created, 0 if the key existed (nothing changed).

if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
