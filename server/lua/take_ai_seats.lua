-- take_ai_seats.lua: take the first seats of the AI seat queue that no worker has been
-- offered (or whose offer lapsed), marking each offered, so that of several servers with
-- free workers exactly one offers each seat, and the oldest waiting seats go first.
--
-- KEYS[1]  {ai}:queue   the waiting seats (member ROOM:SEAT, score = its turn)
-- KEYS[2]  {ai}:offers  the seats offered (member ROOM:SEAT, score = when the offer lapses, ms)
-- ARGV[1]  now (ms): offers lapsing at or before it are over
-- ARGV[2]  when the offers made now lapse (ms)
-- ARGV[3]  how many seats to take at most
-- ARGV[4...] seats not to take (the caller's workers handed them back)
--
-- Returns a flat list: member, score, member, score... of the seats taken, in queue order.

local now = tonumber(ARGV[1])
local want = tonumber(ARGV[3])
local skip = {}
for i = 4, #ARGV do
  skip[ARGV[i]] = true
end
-- At most every offered or skipped seat is passed over on the way to ``want`` free ones.
local span = want + redis.call('ZCARD', KEYS[2]) + (#ARGV - 3)
local head = redis.call('ZRANGE', KEYS[1], 0, span - 1, 'WITHSCORES')
local taken = {}
for i = 1, #head, 2 do
  if #taken >= 2 * want then
    break
  end
  local member = head[i]
  local lapses = redis.call('ZSCORE', KEYS[2], member)
  if not skip[member] and (not lapses or tonumber(lapses) <= now) then
    redis.call('ZADD', KEYS[2], ARGV[2], member)
    taken[#taken + 1] = member
    taken[#taken + 1] = head[i + 1]
  end
end
return taken
