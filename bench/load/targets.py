"""The standing speed targets (issue #14), printed beside the measured figures, never asserted.

The machines are shared and their speed varies, so the targets are ratios to the floor of a
move measured in the same run (``bench/floor_server.py``), read beside the machine speed the
header prints; the echo stays in the output as the network's floor, with no target.
"""

#: Server CPU per applied action, saturated, at most this many times the floor's per move.
TARGET_CPU_RATIO = 3.5
#: Paced p99 of the game at most this many times the floor's paced p99 ...
TARGET_P99_RATIO = 3.0
#: ... measured at this many rooms and actions per second (``--rooms 1000 --rate 1000``).
TARGET_P99_ROOMS = 1000
TARGET_P99_RATE = 1000
TARGET_IDLE_CONNECTIONS = 10_000
TARGET_IDLE_BYTES = 1 << 30

# Redis Cluster (issue #16), measured with ``--redis-cluster`` in the same run as one Redis:
#: the cluster's server CPU per applied action, saturated, at most this many times one Redis's;
TARGET_CLUSTER_CPU_RATIO = 1.3
#: the cluster's paced p50 at most this many milliseconds above one Redis's (WAIT's cost is
#: reported, with no target).
TARGET_CLUSTER_P50_ADDED_MS = 0.5
