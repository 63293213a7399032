#!/usr/bin/env bash
# Agent overhead on a stock Tomcat 9: requests/s and latency of a cheap request without and with the agent, keyed
# requests on the embedded H2 store, start-up time. Usage: demo-apps/bench/overhead.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
E2E=demo-apps/servlet-e2e
./mvnw -q -B install -DskipTests
./mvnw -q -B -pl $E2E pre-integration-test
T9=$(ls -d $E2E/target/servers/apache-tomcat-9.* | head -n 1)
./mvnw -q -B -pl $E2E exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=dev.idempotency.e2e.bench.OverheadBenchmark -Dexec.args="${1:-15} ${2:-8}" \
  -De2e.agent.jar="$PWD/agent/target/idempotency-agent.jar" -De2e.servers="$PWD/$E2E/target/servers" \
  -De2e.wars="$PWD/$E2E/target/wars" -De2e.work="$PWD/$E2E/target/bench-work" -De2e.tomcat9="$(basename "$T9")"
