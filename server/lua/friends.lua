-- friends.lua: one change of a friendship between ME and OTHER, whole or not at all.
--
-- KEYS[1]  {friends}:of:ID     ME's friends: player id -> since (ms)
-- KEYS[2]  {friends}:of:OTHER  OTHER's friends
-- KEYS[3]  {friends}:in:ID     requests to ME: sender -> when (ms)
-- KEYS[4]  {friends}:out:ID    ME's unanswered requests: target -> when (ms)
-- KEYS[5]  {friends}:in:OTHER  requests to OTHER
-- KEYS[6]  {friends}:out:OTHER OTHER's unanswered requests
-- ARGV[1]  the change: ask, accept, decline or remove
-- ARGV[2]  ME's player id
-- ARGV[3]  OTHER's player id
-- ARGV[4]  now (ms)
-- ARGV[5]  most friends of one player
-- ARGV[6]  most unanswered requests one player sent
-- ARGV[7]  most unanswered requests to one player
--
-- Returns one word:
--   ask:     friends (already, or OTHER had asked ME: the two requests cross), asked (now or
--            before), too_many_friends (ME's list is full), too_many_open (ME's unanswered
--            requests), refused (OTHER takes no request now: their list or requests are full)
--   accept:  friends, none (no request from OTHER), too_many_friends, refused
--   decline: declined, none
--   remove:  removed (a friendship or a request either way was taken out), none

local op, me, other, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local max_friends, max_out, max_in = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])

local function forget_requests()
  redis.call('HDEL', KEYS[3], other)
  redis.call('HDEL', KEYS[4], other)
  redis.call('HDEL', KEYS[5], me)
  redis.call('HDEL', KEYS[6], me)
end

local function befriend()
  if redis.call('HLEN', KEYS[1]) >= max_friends then
    return 'too_many_friends'
  end
  if redis.call('HLEN', KEYS[2]) >= max_friends then
    return 'refused'
  end
  forget_requests()
  redis.call('HSET', KEYS[1], other, now)
  redis.call('HSET', KEYS[2], me, now)
  return 'friends'
end

if op == 'ask' then
  if redis.call('HEXISTS', KEYS[1], other) == 1 then
    return 'friends'
  end
  if redis.call('HEXISTS', KEYS[3], other) == 1 then
    return befriend()
  end
  if redis.call('HEXISTS', KEYS[4], other) == 1 then
    return 'asked'
  end
  if redis.call('HLEN', KEYS[1]) >= max_friends then
    return 'too_many_friends'
  end
  if redis.call('HLEN', KEYS[4]) >= max_out then
    return 'too_many_open'
  end
  if redis.call('HLEN', KEYS[5]) >= max_in or redis.call('HLEN', KEYS[2]) >= max_friends then
    return 'refused'
  end
  redis.call('HSET', KEYS[4], other, now)
  redis.call('HSET', KEYS[5], me, now)
  return 'asked'
elseif op == 'accept' then
  if redis.call('HEXISTS', KEYS[3], other) == 0 then
    return 'none'
  end
  return befriend()
elseif op == 'decline' then
  local had = redis.call('HDEL', KEYS[3], other)
  redis.call('HDEL', KEYS[6], me)
  return had == 1 and 'declined' or 'none'
elseif op == 'remove' then
  local had = redis.call('HDEL', KEYS[1], other) + redis.call('HDEL', KEYS[2], me)
  had = had + redis.call('HDEL', KEYS[3], other) + redis.call('HDEL', KEYS[4], other)
  had = had + redis.call('HDEL', KEYS[5], me) + redis.call('HDEL', KEYS[6], me)
  return had > 0 and 'removed' or 'none'
end
return redis.error_reply('friends.lua: unknown change ' .. tostring(op))
