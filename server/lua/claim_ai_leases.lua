-- claim_ai_leases.lua: take the AI seat leases that ran out, so that exactly one server asks
-- for those seats again.
--
-- KEYS[1]  the leases sorted set (member ROOM:SEAT, score = the lease's end, ms)
-- ARGV[1]  now (ms): leases ending at or before it ran out
-- ARGV[2]  the new end (ms) of every lease taken, the time its new request has to be bound
-- ARGV[3]  how many leases to take at most
--
-- Returns the members taken; each now ends at ARGV[2], so another server's call skips them.

local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(expired) do
  redis.call('ZADD', KEYS[1], ARGV[2], member)
end
return expired
