-- create_room.lua: create a room at version 0, atomically, unless it already exists.
--
-- KEYS[1]  {room:ID}:room       room blob (string)
-- KEYS[2]  {room:ID}:version    room version (string holding an integer)
-- KEYS[3]  {room:ID}:events     change stream
-- KEYS[4]  {room:ID}:requests   applied request keys (sorted set)
-- ARGV[1]  the room blob
-- ARGV[2]  the change blob of sequence number 0 (may be empty)
-- ARGV[3]  approximate maximum length of the change stream (MAXLEN ~)
-- ARGV[4]  the room's TTL (ms): it expires this long after its last change (commit.lua)
--
-- Returns 1 if the room was created, 0 if it already existed (nothing changed).
-- Leftovers of an earlier room with the same id (a version, stream or request keys without
-- a room blob) are removed first, so the history starts at 0.

if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '0-1', 'seq', '0', 'change', ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('SET', KEYS[2], '0', 'PX', ARGV[4])
return 1
