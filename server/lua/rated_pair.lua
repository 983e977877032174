-- rated_pair.lua: pair the players waiting for a rated quick match, closest ratings first.
--
-- KEYS[1]  {ratedqueue}:waiting  hash: waiting player -> JSON room, rating, rd, at, name
-- KEYS[2]  {ratedqueue}:last     hash: player -> their last rated quick-match opponent
-- KEYS[3]  {ratedqueue}:pending  hash: paired guest -> JSON of the pair, until seated
-- KEYS[4]  {ratedqueue}:blocked  set: BLOCKER:BLOCKED, pairs never made (either direction)
-- ARGV[1]  the widest gap accepted at once (rating points)
-- ARGV[2]  how much wider it gets per second of waiting (points)
-- ARGV[3]  after this long waiting (ms) anyone is accepted
-- ARGV[4]  the most waiting players looked at (the longest waiting)
-- ARGV[5]  now (ms), or "" for the Redis server's TIME (what the server passes: one clock for
--          every process; a test passes its own)
--
-- Two waiting players may pair when their gap is within the window of the one who waited
-- longer. Never two of whom one blocked the other. Not the same two twice in a row while
-- anyone else waits. Each pair leaves the
-- queue and is noted in KEYS[3] under its guest (the later of the two); the guest is seated
-- in the host's room. Returns the notes of the pairs made (JSON each).

local now
if ARGV[5] and ARGV[5] ~= '' then
  now = tonumber(ARGV[5])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local raw = redis.call('HGETALL', KEYS[1])
local players = {}
for i = 1, #raw, 2 do
  local entry = cjson.decode(raw[i + 1])
  entry.id = raw[i]
  players[#players + 1] = entry
end
if #players < 2 then
  return {}
end
table.sort(players, function(a, b) return a.at < b.at end)
local cap = tonumber(ARGV[4])
while #players > cap do
  table.remove(players)
end
local base, per, anyone = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local function window(p)
  local waited = now - p.at
  if waited >= anyone then
    return math.huge
  end
  return base + per * waited / 1000
end
local last = {}
for _, p in ipairs(players) do
  last[p.id] = redis.call('HGET', KEYS[2], p.id)
end
local others = #players > 2
local candidates = {}
for i = 1, #players do
  for j = i + 1, #players do
    local a, b = players[i], players[j]  -- a waited longer
    local gap = math.abs(a.rating - b.rating)
    local again = last[a.id] == b.id or last[b.id] == a.id
    if gap <= window(a) and not (again and others)
        and redis.call('SISMEMBER', KEYS[4], a.id .. ':' .. b.id) == 0
        and redis.call('SISMEMBER', KEYS[4], b.id .. ':' .. a.id) == 0 then
      candidates[#candidates + 1] = {gap, i, j}
    end
  end
end
table.sort(candidates, function(x, y)
  if x[1] ~= y[1] then return x[1] < y[1] end
  if x[2] ~= y[2] then return x[2] < y[2] end
  return x[3] < y[3]
end)
local used = {}
local made = {}
for _, c in ipairs(candidates) do
  local i, j = c[2], c[3]
  if not used[i] and not used[j] then
    used[i], used[j] = true, true
    local host, guest = players[i], players[j]
    redis.call('HDEL', KEYS[1], host.id, guest.id)
    redis.call('HSET', KEYS[2], host.id, guest.id, guest.id, host.id)
    local note = cjson.encode({host = host.id, host_room = host.room, guest = guest.id,
      guest_room = guest.room, rating = guest.rating, rd = guest.rd, name = guest.name,
      shown = guest.shown,
      host_waited = now - host.at, guest_waited = now - guest.at, gap = c[1], at = now})
    redis.call('HSET', KEYS[3], guest.id, note)
    made[#made + 1] = note
  end
end
return made
