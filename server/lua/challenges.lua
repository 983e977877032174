-- challenges.lua: send or answer one challenge from SENDER to TARGET, whole or not at all.
--
-- KEYS[1]  {challenges}:c:CID       the challenge: sender, target, rated, turn_seconds,
--                                   match_target (points), at, deadline (ms), state, room
-- KEYS[2]  {challenges}:open:ID     SENDER's open challenges: id -> deadline (ms)
-- KEYS[3]  {challenges}:sent:ID     SENDER's challenges: id -> forgotten at (ms)
-- KEYS[4]  {challenges}:in:TID      open challenges to TARGET: id -> deadline (ms)
-- ARGV[1]  the step: send, accept, decline or cancel
-- ARGV[2]  SENDER's player id
-- ARGV[3]  TARGET's player id
-- ARGV[4]  now (ms)
-- send:    ARGV[5] deadline (ms), ARGV[6] kept this long past the deadline (ms),
--          ARGV[7] most open challenges of one sender, ARGV[8] rated (0/1),
--          ARGV[9] turn seconds, ARGV[10] the points the match is played to
-- accept:  ARGV[5] the room it makes (its id, before the room is created)
--
-- Returns one word:
--   send:    sent, too_many_open (SENDER has ARGV[7] open challenges), exists (id taken)
--   answer:  ok (answered now), none (no such challenge between the two), expired (past its
--            deadline), or the state it was answered with before (accepted, declined,
--            cancelled, failed)

local op, sender, target, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local id = string.sub(KEYS[1], string.len('{challenges}:c:') + 1)

-- what is past its deadline is open no more (and forgotten once its outcome was kept long)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)

if op == 'send' then
  local deadline, keep, most = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  if redis.call('ZCARD', KEYS[2]) >= most then
    return 'too_many_open'
  end
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return 'exists'
  end
  redis.call('HSET', KEYS[1], 'sender', sender, 'target', target, 'rated', ARGV[8],
    'turn_seconds', ARGV[9], 'match_target', ARGV[10], 'at', now, 'deadline', deadline, 'state', 'open')
  redis.call('PEXPIRE', KEYS[1], deadline - now + keep)
  redis.call('ZADD', KEYS[2], deadline, id)
  redis.call('ZADD', KEYS[3], deadline + keep, id)
  redis.call('ZADD', KEYS[4], deadline, id)
  return 'sent'
end

if op ~= 'accept' and op ~= 'decline' and op ~= 'cancel' then
  return redis.error_reply('challenges.lua: unknown step ' .. tostring(op))
end
local found = redis.call('HMGET', KEYS[1], 'sender', 'target', 'state', 'deadline')
if found[1] ~= sender or found[2] ~= target then
  return 'none'
end
if found[3] ~= 'open' then
  return found[3]
end
if now >= tonumber(found[4]) then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[4], id)
  return 'expired'
end
local state = ({accept = 'accepted', decline = 'declined', cancel = 'cancelled'})[op]
redis.call('HSET', KEYS[1], 'state', state, 'answered', now)
if op == 'accept' then
  redis.call('HSET', KEYS[1], 'room', ARGV[5])
end
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[4], id)
return 'ok'
