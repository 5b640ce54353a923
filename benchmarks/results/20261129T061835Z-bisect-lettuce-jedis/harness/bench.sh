#!/usr/bin/env bash
# bench.sh <checkout> <name> [targets] : JMH multiGet latency at 1,000 keys, sample mode, the jar of <checkout>
set -euo pipefail
dir=$1; name=$2; targets=${3:-slotwise-lettuce,slotwise-jedis,ideal}
out=/work/bisect-results
jar=$(mktemp -t bisect-XXXXXX.jar); cp "$dir/benchmarks/target/benchmarks.jar" "$jar"
echo "$name $(git -C "$dir" rev-parse --short HEAD) load_start $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" | tee "$out/$name.meta"
java -Djava.awt.headless=true -jar "$jar" '\.MultiGetLatencyBenchmark\.' -bm sample -tu us \
  -p keys=1000 -p target=$targets ${JMH_OPTS:--f 2 -wi 3 -w 1s -i 8 -r 1s} \
  -rf json -rff "$out/$name.json" > "$out/$name.log" 2>&1 || { echo FAILED; tail -20 "$out/$name.log"; }
echo "load_end $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" | tee -a "$out/$name.meta"
rm -f "$jar"
python3 "$out/ratio.py" "$out/$name.json" | tee -a "$out/$name.meta"
