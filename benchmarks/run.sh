#!/usr/bin/env bash
# Runs every Slotwise benchmark, each with its baseline in the same JMH run on the same real cluster (started by the
# benchmark itself), saves the JSON results under benchmarks/results/<date>/ and prints Markdown tables with the
# speed-ups against the baselines. Run it on an otherwise idle machine.
#
#   benchmarks/run.sh [pool|first|topology|multiget ...]    (default: all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out="benchmarks/results/$(date -u +%Y-%m-%d)"
mkdir -p "$out"
./mvnw -q -B -pl benchmarks -am package -DskipTests
jar=benchmarks/target/benchmarks.jar
jmh() { java -jar "$jar" "$@"; }
report() { java -cp "$jar" dev.slotwise.benchmarks.BenchmarkReport "$@"; }

selected=("$@")
((${#selected[@]})) || selected=(pool first topology multiget)
for benchmark in "${selected[@]}"; do
	case "$benchmark" in
		pool)
			jmh PoolThroughputBenchmark -rf json -rff "$out/pool-throughput.json" | tee "$out/pool-throughput.log"
			report "$out/pool-throughput.json" pool=validate-on-borrow-and-return | tee "$out/pool-throughput.md" ;;
		first)
			jmh FirstRequestsBenchmark -rf json -rff "$out/first-requests.json" | tee "$out/first-requests.log"
			report "$out/first-requests.json" start=steady-state | tee "$out/first-requests.md" ;;
		topology)
			jmh TopologyLookupBenchmark -f 1 -wi 1 -w 2s -i 5 -r 5s -rf json -rff "$out/topology.json" | tee "$out/topology.log"
			report "$out/topology.json" provider=sdr | tee "$out/topology.md" ;;
		multiget)
			# Sample mode gives the median per call; SDR over Jedis needs seconds per call at 10,000 keys.
			jmh MultiGetLatencyBenchmark -bm sample -tu us -f 1 -wi 2 -w 3s -i 5 -r 3s \
				-rf json -rff "$out/multiget-latency.json" | tee "$out/multiget-latency.log"
			report "$out/multiget-latency.json" target=sdr-lettuce | tee "$out/multiget-latency.md"
			jmh MultiGetThroughputBenchmark -f 1 -wi 2 -w 3s -i 5 -r 3s \
				-rf json -rff "$out/multiget-throughput.json" | tee "$out/multiget-throughput.log"
			report "$out/multiget-throughput.json" target=sdr-lettuce | tee "$out/multiget-throughput.md" ;;
		*) echo "Unknown benchmark: $benchmark" >&2; exit 2 ;;
	esac
done
