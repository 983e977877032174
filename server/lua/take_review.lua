-- take_review.lua: hand the first review due to a worker, for a lease.
--
-- KEYS[1]  reviews:queue   hand ids, scored by when a worker may take them (ms)
-- ARGV[1]  now (ms)
-- ARGV[2]  the lease (ms): the hand is due again then, unless its worker renews or ends it
--
-- Returns the hand id taken, or false when none is due.

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then
  return false
end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), due[1])
return due[1]
