-- hash_incr.lua: increment integer fields of a hash only if the hash exists.
--
-- KEYS[1]  the hash
-- ARGV     field1, increment1, field2, increment2, ... (integers)
--
-- Returns the new values, in ARGV order, or nil if there is no such hash (nothing changed).

if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local values = {}
for i = 1, #ARGV, 2 do
  values[#values + 1] = redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
return values
