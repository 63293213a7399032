#!/usr/bin/env bash
# Memory under large keyed bodies: concurrent keyed 1 MiB POSTs echoed back by a stock Tomcat 9 at several heaps,
# without and with the agent (see MemoryBenchmark). Usage: demo-apps/bench/memory.sh [HEAPS] [REQUESTS] [BODY_BYTES] [setting=value ...]
set -euo pipefail
exec "$(dirname "$0")/e2e-main.sh" dev.idempotency.e2e.bench.MemoryBenchmark "${1:-256m,288m,384m,512m} ${2:-200} ${3:-1048576} ${*:4}"
