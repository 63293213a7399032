#!/usr/bin/env bash
# Shares of a server's CPU samples per component, from the collapsed stacks that run.sh writes with PROFILE=cpu
# (async-profiler, --threads): each sample goes to the innermost frame that belongs to a component (JDK and native
# frames go to their caller), or by its thread's name to the JIT or the garbage collector.
#
# Usage: demo-apps/bench/profile-summary.sh FILE.collapsed [REQUESTS]
#   REQUESTS (the point's served requests, from results.tsv) adds samples per request; at 200 us per sample,
#   multiply by 200 for the server's CPU microseconds per request.
set -euo pipefail
[[ $# -ge 1 && -f $1 ]] || { echo "usage: $0 FILE.collapsed [REQUESTS]" >&2; exit 2; }
awk -v requests="${2:-0}" '
function component(frame) {
  if (frame ~ /^(org\/postgresql|org\.postgresql)/) return "pgjdbc"
  if (frame ~ /^(org\/mariadb|org\.mariadb)/) return "MariaDB driver"
  if (frame ~ /^(org\/h2|org\.h2)/) return "H2"
  if (frame ~ /^(com\/zaxxer|com\.zaxxer)/) return "HikariCP"
  if (frame ~ /^(redis\/clients|redis\.clients)/) return "Jedis"
  if (frame ~ /^(org\/apache\/commons\/pool2|org\.apache\.commons\.pool2)/) return "commons-pool2"
  if (frame ~ /^(com\/fasterxml|com\.fasterxml)/) return "Jackson (fingerprint)"
  if (frame ~ /^(dev\/idempotency\/store|dev\.idempotency\.store)/) return "store"
  if (frame ~ /^(dev\/idempotency\/agent|dev\.idempotency\.agent)/) return "agent"
  if (frame ~ /^(dev\/idempotency\/demo|dev\.idempotency\.demo)/) return "application or hand-written filter"
  if (frame ~ /^(org\/apache\/(tomcat|coyote)|org\.apache\.(tomcat|coyote))/) return "Tomcat connector and I/O"
  if (frame ~ /^(org\/apache\/catalina|org\.apache\.catalina)/) return "Tomcat request processing"
  if (frame ~ /^(net\/bytebuddy|net\.bytebuddy)/) return "Byte Buddy"
  return ""
}
{
  count = $NF
  stack = $0
  sub(/ [0-9]+$/, "", stack)
  n = split(stack, frames, ";")
  thread = frames[1]
  what = ""
  if (thread ~ /C[12] CompilerThre/) what = "JIT compiler"
  else if (thread ~ /GC Thread|G1 |VM Thread|Conc/) what = "GC and VM"
  else {
    for (i = n; i > 1 && what == ""; i--) what = component(frames[i])
    if (what == "") what = "other (JDK, native, kernel)"
  }
  samples[what] += count
  total += count
}
END {
  printf "%d|%-40s %9s %7s%s\n", 2000000000, "component", "samples", "share", requests ? "  per request" : ""
  for (w in samples) {
    printf "%d|%-40s %9d %6.1f%%", samples[w], w, samples[w], 100 * samples[w] / total
    if (requests) printf "  %11.4f", samples[w] / requests
    printf "\n"
  }
  printf "%d|%-40s %9d %6.1f%%", -1, "all", total, 100
  if (requests) printf "  %11.4f", total / requests
  printf "\n"
}' "$1" | sort -t'|' -k1,1nr | cut -d'|' -f2-
