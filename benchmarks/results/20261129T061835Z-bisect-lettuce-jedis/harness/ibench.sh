#!/usr/bin/env bash
# ibench.sh <checkout> <name> [targets] [rounds] [calls]
set -euo pipefail
dir=$1; name=$2; targets=${3:-slotwise-lettuce,slotwise-jedis,ideal}; rounds=${4:-40}; calls=${5:-200}
out=/work/bisect-results
jar=$(mktemp -t bisect-XXXXXX.jar); cp "$dir/benchmarks/target/benchmarks.jar" "$jar"
cls=$(mktemp -d)
javac -nowarn -d "$cls" -cp "$jar" $out/harness/dev/slotwise/benchmarks/*.java 2>&1 | grep -v '^Note' || true
echo "$name $(git -C "$dir" rev-parse --short HEAD) keys=1000 rounds=$rounds calls=$calls load_start $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" | tee "$out/$name.meta"
java -Xms1g -Xmx1g -cp "$cls:$jar" dev.slotwise.benchmarks.Interleave 1000 $rounds $calls $targets > "$out/$name.csv" 2> "$out/$name.err" || { echo FAILED; tail "$out/$name.err"; }
echo "load_end $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" | tee -a "$out/$name.meta"
rm -rf "$jar" "$cls"
python3 $out/iratio.py "$out/$name.csv" | tee -a "$out/$name.meta"
