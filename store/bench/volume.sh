#!/usr/bin/env bash
# A day of a busy API in the key table: size, new-key and replay latency at 1M, 5M and 10M keys, then the purge of
# an expired million and what it leaves behind. PostgreSQL; drops and recreates the table idempotency_volume.
# Usage: store/bench/volume.sh [JDBC_URL] [KEY COUNTS] [BODY BYTES] [EXPIRED KEYS] [PARTITIONING]
# PARTITIONING: none (one plain table, the default), hourly, daily or a width in seconds; run it once per layout.
set -euo pipefail
cd "$(dirname "$0")/../.."
URL=${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}

./mvnw -q -B -pl store -am install -DskipTests
./mvnw -q -B -pl store exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=dev.idempotency.store.bench.KeyVolumeBenchmark \
  -Dexec.args="$URL ${2:-1000000,5000000,10000000} ${3:-300} ${4:-1000000} ${5:-none}"
