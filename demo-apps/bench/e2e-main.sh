#!/usr/bin/env bash
# Runs one benchmark main class of the end-to-end module against the built agent jar, WARs and the stock Tomcat 9
# distribution (what overhead.sh and memory.sh share). Usage: demo-apps/bench/e2e-main.sh MAIN_CLASS "ARGS"
set -euo pipefail
cd "$(dirname "$0")/../.."
E2E=demo-apps/servlet-e2e
./mvnw -q -B install -DskipTests
./mvnw -q -B -pl $E2E pre-integration-test
T9=$(ls -d $E2E/target/servers/apache-tomcat-9.* | head -n 1)
./mvnw -q -B -pl $E2E exec:java -Dexec.classpathScope=test -Dexec.mainClass="$1" -Dexec.args="$2" \
  -De2e.agent.jar="$PWD/agent/dist/target/idempotency-agent.jar" -De2e.servers="$PWD/$E2E/target/servers" \
  -De2e.wars="$PWD/$E2E/target/wars" -De2e.work="$PWD/$E2E/target/bench-work" -De2e.tomcat9="$(basename "$T9")"
