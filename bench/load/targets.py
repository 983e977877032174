"""The figures issue #3 asks of the server; printed beside the measured ones, never asserted."""

TARGET_ACTIONS_PER_S = 5000
TARGET_P99_MS = 5.0
TARGET_P99_ROOMS = 1000
TARGET_ECHO_RATIO = 3.0
TARGET_IDLE_CONNECTIONS = 10_000
TARGET_IDLE_BYTES = 1 << 30
