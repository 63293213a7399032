#!/usr/bin/env bash
# JMH benchmarks of the agent's per-request pure functions. Builds target/benchmarks.jar (profile jmh) and runs it;
# arguments go to JMH. Usage: demo-apps/bench/jmh/run.sh [JMH options] [benchmark regexp]
#   demo-apps/bench/jmh/run.sh                                  JMH defaults (5 forks x 5 x 10 s: long)
#   demo-apps/bench/jmh/run.sh -f 1 -wi 2 -i 3 -w 1s -r 1s      a quick look (about 1 min)
#   demo-apps/bench/jmh/run.sh -f 1 Fingerprint                 one class
set -euo pipefail
cd "$(dirname "$0")/../../.."
./mvnw -q -B -Pjmh -pl demo-apps/bench/jmh -am package -DskipTests
exec java -jar demo-apps/bench/jmh/target/benchmarks.jar "$@"
