#!/usr/bin/env bash
# abbench.sh <name> <old commit> <new commit> [rounds] [calls]: both clients of two commits interleaved in one JVM
set -euo pipefail
out=/work/bisect-results; name=$1; old=$2; new=$3; rounds=${4:-400}; calls=${5:-20}
jo=$(mktemp -t ab-XXXXXX.jar); jn=$(mktemp -t ab-XXXXXX.jar)
cp /work/bisect-$old/benchmarks/target/benchmarks.jar $jo; cp /work/bisect-$new/benchmarks/target/benchmarks.jar $jn
echo "$name old=$old new=$new keys=1000 rounds=$rounds calls=$calls load_start $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" | tee "$out/$name.meta"
java -Xms2g -Xmx2g -cp $out/ab AbInterleave 1000 $rounds $calls "L-$old=$jo:slotwise-lettuce" "J-$old=$jo:slotwise-jedis" "L-$new=$jn:slotwise-lettuce" "J-$new=$jn:slotwise-jedis" > "$out/$name.csv" 2> "$out/$name.err" || { echo FAILED; tail "$out/$name.err"; }
echo "load_end $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" | tee -a "$out/$name.meta"
rm -f $jo $jn
python3 $out/iratio.py "$out/$name.csv" "L-$new/L-$old" "J-$new/J-$old" "L-$old/J-$old" "L-$new/J-$new" | grep -v geomean | tee -a "$out/$name.meta"
