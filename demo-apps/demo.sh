#!/usr/bin/env bash
# The Idempotency Agent in two minutes: builds the agent and the legacy demo WAR, starts a stock Tomcat 9 with
# -javaagent (embedded H2 store, zero configuration), plays a short scenario with curl and prints what happened.
#   demo-apps/demo.sh                 run the scenario, then stop the server
#   demo-apps/demo.sh --keep-running  leave the server up for your own curl (Ctrl-C stops it)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOMCAT_VERSION=9.0.117
DEMO=$ROOT/demo-apps/target/demo
PORT=${DEMO_PORT:-8080}
KEEP=false
[[ ${1:-} == --keep-running ]] && KEEP=true

echo "==> building the agent and the demo WAR (./mvnw install -DskipTests)"
./mvnw -q -B install -DskipTests
rm -rf "$DEMO" && mkdir -p "$DEMO"
echo "==> fetching a stock Apache Tomcat $TOMCAT_VERSION (Maven artifact org.apache.tomcat:tomcat:$TOMCAT_VERSION:tar.gz)"
./mvnw -q -B dependency:copy -Dartifact=org.apache.tomcat:tomcat:$TOMCAT_VERSION:tar.gz -DoutputDirectory="$DEMO"
tar xzf "$DEMO/tomcat-$TOMCAT_VERSION.tar.gz" -C "$DEMO"
TOMCAT=$DEMO/apache-tomcat-$TOMCAT_VERSION
rm -rf "$TOMCAT"/webapps/*
cp demo-apps/payments-javax/target/payments.war "$TOMCAT/webapps/shop.war"
sed -i "s/port=\"8005\"/port=\"-1\"/; s/port=\"8080\"/port=\"$PORT\"/" "$TOMCAT/conf/server.xml"

echo "==> starting Tomcat with -javaagent:agent/dist/target/idempotency-agent.jar on port $PORT"
(cd "$TOMCAT" && exec java -javaagent:"$ROOT/agent/dist/target/idempotency-agent.jar" \
  -Duser.home="$DEMO/home" -Dpayments.db="$DEMO/ledger" \
  -Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager -Djava.util.logging.config.file=conf/logging.properties \
  -Dcatalina.base="$TOMCAT" -Dcatalina.home="$TOMCAT" -cp bin/bootstrap.jar:bin/tomcat-juli.jar \
  org.apache.catalina.startup.Bootstrap start > "$DEMO/tomcat.log" 2>&1) &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
URL=http://127.0.0.1:$PORT/shop
for _ in $(seq 1 120); do curl -sf -o /dev/null "$URL/counters" && break; sleep 0.5; done
curl -sf -o /dev/null "$URL/counters" || { echo "Tomcat did not start; see $DEMO/tomcat.log"; exit 1; }
grep '\[idempotency-agent\]' "$DEMO/tomcat.log" | head -n 1

charges() { curl -s "$URL/counters" | sed -E 's/.*"charge":([0-9]+).*/\1/'; }
post() { # key, body, extra curl args... -> "status replayed"
  local key=$1 body=$2; shift 2
  curl -s -o /dev/null -D - -X POST "$URL/payments" -H "Idempotency-Key: $key" -H 'Content-Type: application/json' -d "$body" "$@" \
    | awk 'tolower($1)=="http/1.1"{s=$2} tolower($1)=="idempotent-replayed:"{r="yes"} END{print s, (r?r:"no")}'
}
row() { printf '| %-44s | %-16s | %-8s | %7s |\n' "$1" "$2" "$3" "$4"; }

KEY=order-$(date +%s)
echo
row "step" "answer" "replayed" "charges"
row "--------------------------------------------" "----------------" "--------" "-------"
read -r s r < <(post "$KEY" '{"amount":1000,"currency":"eur"}'); row "1. POST /payments, new key" "$s" "$r" "$(charges)"
read -r s r < <(post "$KEY" '{"currency":"eur","amount":1000}'); row "2. the client retries (same key and payload)" "$s" "$r" "$(charges)"
CONC=conc-$(date +%s)
results=$(for _ in $(seq 1 10); do post "$CONC" '{"amount":250}' -H 'X-Delay-Ms: 1500' & done; wait)
summary=$(echo "$results" | awk '{print $1}' | sort | uniq -c | awk '{printf "%s%sx%s", sep, $1, $2; sep=" "}')
row "3. 10 concurrent duplicates (slow payment)" "$summary" "-" "$(charges)"
read -r s r < <(post "$KEY" '{"amount":9999,"currency":"eur"}'); row "4. same key, different amount" "$s" "$r" "$(charges)"
read -r s r < <(curl -s -o /dev/null -w '%{http_code} no\n' -X POST "$URL/payments" -H 'Content-Type: application/json' -d '{"amount":5}'); row "5. POST without a key (untouched)" "$s" "$r" "$(charges)"
echo
echo "The application charged $(charges) times for 14 POSTs: once for each of the two keys (steps 1-4) and once for the unkeyed POST."
echo "Agent store: $DEMO/home/.idempotency-agent (H2). Server log: $DEMO/tomcat.log"

if $KEEP; then
  echo
  echo "Tomcat keeps running at $URL (Ctrl-C to stop). Try:"
  echo "  curl -i -X POST $URL/payments -H 'Idempotency-Key: my-key' -H 'Content-Type: application/json' -d '{\"amount\":42}'"
  wait $SERVER
fi
