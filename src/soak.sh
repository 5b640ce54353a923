#!/usr/bin/env bash
# The chaos soak (issue #21): a local 3-master/3-replica cluster, one Spring Boot application per client (Jedis,
# Lettuce) with Slotwise and one without it (the control, plain Spring Boot), all on the same cluster at the same
# time, 8 workers each on their own keys, seeded random faults every 10-20 s (SIGKILL of a master and its restart,
# CLUSTER FAILOVER, CLIENT PAUSE, CLIENT KILL of the applications' connections, slot migrations with keys, DEBUG SLEEP
# on a replica), invariants checked on every reply and at the end. See docs/soak.md.
#
# Usage: src/soak.sh [--minutes M] [--seed S] [--faults kill,failover,pause,clientkill,migrate,sleep]
#                    [--client jedis|lettuce|both] [--no-control] [--workers N] [--rate OPS_PER_WORKER]
#                    [--gap MIN-MAX] [--out DIR]
#
# Writes <out>/report.md, timeline.png, timeline.csv and soak.log (default out:
# benchmarks/results/<UTC timestamp>-soak-<clients>). Exits 1 when an application with Slotwise read a wrong value or
# did not recover from a fault within 15 s; 2 on bad options.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case "${args[$i]}" in
		-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
		--out) out=${args[$((i + 1))]:-} ;;
	esac
done
if [[ -z $out ]]; then
	clients=both
	for ((i = 0; i < ${#args[@]}; i++)); do
		[[ ${args[$i]} == --client ]] && clients=${args[$((i + 1))]:-both}
	done
	[[ $clients == both ]] && clients=jedis-lettuce
	out="benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-soak-$clients"
	args+=(--out "$out")
fi
mkdir -p "$out"

offline=()
if ./mvnw -B -o -q -pl benchmarks -am validate >/dev/null 2>&1; then offline=(-o); fi
if [[ -z ${SOAK_JAR:-} ]]; then
	echo "Building benchmarks.jar ..."
	./mvnw -B "${offline[@]}" -q -pl benchmarks -am package -DskipTests
	jar_source=benchmarks/target/benchmarks.jar
else
	jar_source=$SOAK_JAR
fi
# A private copy: a rebuild while the soak runs must not change the classes it loads.
jar=$(mktemp -t slotwise-soak-XXXXXX.jar)
trap 'rm -f "$jar"' EXIT
cp "$jar_source" "$jar"

echo "Soak: ${args[*]} (load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores); log in $out/soak.log"
set +e
java -Djava.awt.headless=true -Xmx768m -cp "$jar" dev.slotwise.benchmarks.soak.Soak "${args[@]}" 2>&1 | tee "$out/soak.log" | grep --line-buffered -E '^\[soak\]|^(PASS|FAIL)|Exception in thread'
status=${PIPESTATUS[0]}
set -e
echo "Report: $out/report.md (exit $status)"
exit "$status"
