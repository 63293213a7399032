#!/usr/bin/env bash
# Agent overhead on a stock Tomcat 9: requests/s and latency of a cheap request without and with the agent, keyed
# requests on the embedded H2 store, start-up time. Usage: demo-apps/bench/overhead.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
exec "$(dirname "$0")/e2e-main.sh" dev.idempotency.e2e.bench.OverheadBenchmark "${1:-15} ${2:-8}"
