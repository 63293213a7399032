#!/usr/bin/env bash
# Memory under large keyed bodies: concurrent keyed 1 MiB POSTs echoed back by a stock Tomcat 9 at several heaps,
# without and with the agent (see MemoryBenchmark). Usage: demo-apps/bench/memory.sh [HEAPS] [REQUESTS] [BODY_BYTES] [setting=value ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
E2E=demo-apps/servlet-e2e
./mvnw -q -B install -DskipTests
./mvnw -q -B -pl $E2E pre-integration-test
T9=$(ls -d $E2E/target/servers/apache-tomcat-9.* | head -n 1)
./mvnw -q -B -pl $E2E exec:java -Dexec.classpathScope=test \
  -Dexec.mainClass=dev.idempotency.e2e.bench.MemoryBenchmark -Dexec.args="${1:-256m,288m,384m,512m} ${2:-200} ${3:-1048576} ${*:4}" \
  -De2e.agent.jar="$PWD/agent/target/idempotency-agent.jar" -De2e.servers="$PWD/$E2E/target/servers" \
  -De2e.wars="$PWD/$E2E/target/wars" -De2e.work="$PWD/$E2E/target/bench-work" -De2e.tomcat9="$(basename "$T9")"
