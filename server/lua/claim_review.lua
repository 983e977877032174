-- claim_review.lua: claim the review of a finished hand, once.
--
-- KEYS[1]  hand:ID    the hand record (its review lives in its fields)
--
-- Returns the review's state before the call: 'missing' (no such hand: nothing changed),
-- 'new' (no review was asked for: it is now 'queued', progress 0 of 0), or the state found
-- ('queued', 'running', 'done': nothing changed).

if redis.call('EXISTS', KEYS[1]) == 0 then
  return 'missing'
end
local state = redis.call('HGET', KEYS[1], 'review_state')
if state then
  return state
end
redis.call('HSET', KEYS[1], 'review_state', 'queued', 'review_done', 0, 'review_total', 0)
return 'new'
