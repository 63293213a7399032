#!/usr/bin/env bash
# Store throughput: reserve-then-complete cycles/s through the store at 1, 8 and 32 threads, then pgbench running the
# same two statements on the same table (the ceiling). Group commit off and on alternate at each thread count.
# Usage: store/bench/run.sh [JDBC_URL] [THREADS] [SECONDS] [MODES: off,on] [BODY_BYTES: 65]
set -euo pipefail
cd "$(dirname "$0")/../.."
URL=${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
THREADS=${2:-1,8,32}
SECONDS_PER_RUN=${3:-10}

./mvnw -q -B -pl store -am install -DskipTests
./mvnw -q -B -pl store exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=dev.idempotency.store.bench.ReserveCompleteBenchmark \
  -Dexec.args="$URL $THREADS $SECONDS_PER_RUN ${4:-off,on} ${5:-0}"

if [[ $URL == jdbc:postgresql:* ]] && command -v pgbench >/dev/null; then
  echo "pgbench, same two statements, same table:"
  for c in ${THREADS//,/ }; do
    tps=$(pgbench -n -h 127.0.0.1 -U postgres -M prepared -c "$c" -j "$(( c < 2 ? c : 2 ))" -T "$SECONDS_PER_RUN" \
      -f store/bench/reserve-complete.pgbench.sql test 2>/dev/null | awk '/^tps/ {print $3}')
    printf '%7d %10.0f cycles/s\n' "$c" "$tps"
  done
  psql -q -h 127.0.0.1 -U postgres test -c "DELETE FROM idempotency_bench"
fi
