#!/usr/bin/env bash
# The benchmark gate: compares a candidate run with a baseline run (JMH JSON files, or run folders written by
# benchmarks/run.sh) and exits 1 when something regressed, 0 otherwise, 2 on bad input. See docs/benchmarks.md.
#
#   benchmarks/compare.sh [--threshold 0.10] [--unstable 0.25] [--gate ratio|absolute|both] BASELINE CANDIDATE
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jar="$root/benchmarks/target/benchmarks.jar"
# Build when the jar is missing or older than the gate's sources or the pom.
if [[ ! -f $jar || -n $(find "$root/benchmarks/src/main" "$root/benchmarks/pom.xml" -newer "$jar" -print -quit) ]]; then
	offline=()
	if (cd "$root" && ./mvnw -B -o -q -pl benchmarks -am validate >/dev/null 2>&1); then offline=(-o); fi
	(cd "$root" && ./mvnw -B "${offline[@]}" -q -pl benchmarks -am package -DskipTests) >&2
fi
exec java -cp "$jar" dev.slotwise.benchmarks.gate.Compare "$@"
