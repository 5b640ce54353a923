#!/usr/bin/env bash
# Runs the Slotwise benchmarks, each with its baselines in the same JMH run (every trial starts its own real local
# 3-master + 3-replica cluster of redis-server, fills it, measures, and stops it), and writes one folder per run:
#
#   benchmarks/results/<UTC timestamp>-<quick|full>/
#     <family>.json   JMH results          machine.json   cores, CPU, JVM, OS, Redis, git commit (+ dirty), load
#     summary.md      score, error, ratio to the in-run baseline with its uncertainty
#     *.png           charts (XChart)      logs/          the JMH output of each family
#
# Usage:
#   benchmarks/run.sh --quick [family ...]     a few minutes: 1 fork, 1 s iterations, fewer parameters
#   benchmarks/run.sh [--full] [family ...]    the published figures (default; the families as before)
#   benchmarks/run.sh --profile <Benchmark> [JMH options ...]
#                                              one benchmark with -prof gc and -prof stack (and async-profiler when
#                                              ASYNC_PROFILER_LIB or a libasyncProfiler.so is found), quick settings
#   families: multiget reactive pipeline pool first topology cpu keyspace (default: all but scale and keyspace)
#             scale (not in the default: the cluster-size sweep, 3 to 24 masters, about 15 minutes)
#             keyspace (not in the default: scan and cache clear of 200,000 keys)
#             transaction (not in the default: MULTI/EXEC of 10 SETs, cluster against one standalone node)
#             nearcache (not in the default: the near cache on against off, 5 workloads x 2 clients, about 12 minutes)
#
# Then compare two runs: benchmarks/compare.sh benchmarks/results/<old> benchmarks/results/<new>
# Run it on an otherwise idle machine: every trial shares the cores with the cluster.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mode=full
profile=""
families=()
jmh_extra=()
while (($#)); do
	case "$1" in
		--quick) mode=quick ;;
		--full) mode=full ;;
		--profile)
			[[ $# -ge 2 ]] || { echo "--profile needs a benchmark name, e.g. --profile MultiGetLatencyBenchmark" >&2; exit 2; }
			mode=profile; profile=$2; shift
			shift; jmh_extra=("$@"); break ;;
		multiget|reactive|pipeline|pool|first|topology|cpu|scale|keyspace|transaction|nearcache) families+=("$1") ;;
		-h|--help) sed -n '2,23p' "$0"; exit 0 ;;
		*) echo "Unknown argument: $1 (see benchmarks/run.sh --help)" >&2; exit 2 ;;
	esac
	shift
done
((${#families[@]})) || families=(multiget reactive pipeline pool first topology cpu)

stamp=$(date -u +%Y%m%dT%H%M%SZ)
if [[ $mode == profile ]]; then
	out="benchmarks/results/$stamp-profile-$profile"
else
	out="benchmarks/results/$stamp-$mode"
fi
mkdir -p "$out/logs"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)

# The code measured: the commit the jar is built from, and whether tracked files differed from it.
commit=$(git rev-parse HEAD)
dirty=false
[[ -z $(git status --porcelain --untracked-files=no) ]] || dirty=true

offline=()
if ./mvnw -B -o -q -pl benchmarks -am validate >/dev/null 2>&1; then offline=(-o); fi
echo "Building benchmarks.jar ..."
./mvnw -B "${offline[@]}" -q -pl benchmarks -am package -DskipTests
# A private copy: a rebuild while this run is going must not change the classes its forks load.
jar=$(mktemp -t slotwise-benchmarks-XXXXXX.jar)
trap 'rm -f "$jar"' EXIT
cp benchmarks/target/benchmarks.jar "$jar"

# One line per trial: its parameters and score as JMH prints them; failures as they come.
progress() {
	awk -v family="$1" -v started="$started" '
		/^# Benchmark: / { name = $3; sub(/^.*\.benchmarks\./, "", name) }
		/^# Parameters: / { params = $0; sub(/^# Parameters: /, "", params) }
		/^Result "/ { want = 1; next }
		want && /±\(99\.9%\)/ { line = $0; sub(/^ *(mean = )?/, "", line);
			printf "  [%4ds %s] %s %s: %s\n", systime() - started, family, name, params, line; fflush(); want = 0 }
		/<failure>/ { failing = 2 }
		failing > 0 && NF { printf "  [%s] FAILED %s %s: %s\n", family, name, params, $0; fflush(); failing-- }
	'
}

# Runs JMH for one family: the include pattern, the JSON name, then JMH options.
jmh() {
	local pattern=$1 name=$2
	shift 2
	echo "$name ..."
	java -Djava.awt.headless=true -jar "$jar" "\\.$pattern\\." -rf json -rff "$out/$name.json" \
		-jvmArgsAppend "-Dslotwise.results=$out" "$@" "${jmh_extra[@]}" 2>&1 | tee "$out/logs/$name.log" | progress "$name"
}

# Five measured iterations: with three, the 95% interval (Student t, 2 degrees of freedom) is too wide to gate.
quick=(-f 1 -wi 1 -w 1s -i 5 -r 1s)
for family in "${families[@]}"; do
	[[ $mode == profile ]] && break
	case "$mode:$family" in
		quick:multiget)
			# The gated baseline (SDR over Lettuce) and both Slotwise paths; SDR over Jedis and raw Lettuce in --full.
			jmh MultiGetLatencyBenchmark multiget-latency -bm sample -tu us "${quick[@]}" -p keys=100,1000 \
				-p target=sdr-lettuce,slotwise-jedis,slotwise-lettuce
			jmh MultiGetThroughputBenchmark multiget-throughput "${quick[@]}" \
				-p target=sdr-lettuce,slotwise-jedis,slotwise-lettuce ;;
		full:multiget)
			# Sample mode gives the median per call; SDR over Jedis needs seconds per call at 10,000 keys.
			jmh MultiGetLatencyBenchmark multiget-latency -bm sample -tu us -f 1 -wi 2 -w 3s -i 5 -r 3s
			jmh MultiGetThroughputBenchmark multiget-throughput -f 1 -wi 2 -w 3s -i 5 -r 3s ;;
		quick:reactive)
			jmh ReactiveMultiGetLatencyBenchmark reactive-multiget-latency "${quick[@]}" -p keys=1000 \
				-p target=sdr-reactive,slotwise-reactive ;;
		full:reactive)
			jmh ReactiveMultiGetLatencyBenchmark reactive-multiget-latency -f 1 -wi 1 -w 3s -i 4 -r 3s
			jmh ReactiveMultiGetThroughputBenchmark reactive-multiget-throughput -f 1 -wi 1 -w 3s -i 4 -r 3s ;;
		quick:pipeline)
			jmh PipelineBenchmark pipeline "${quick[@]}" \
				-p target=slotwise-jedis-pipelined,sdr-jedis-one-by-one ;;
		full:pipeline)
			jmh PipelineBenchmark pipeline -f 1 -wi 4 -w 5s -i 5 -r 5s ;;
		quick:pool)
			jmh PoolThroughputBenchmark pool-throughput "${quick[@]}" \
				-p pool=slotwise-defaults,validate-on-borrow-and-return ;;
		full:pool)
			jmh PoolThroughputBenchmark pool-throughput ;;
		quick:first)
			jmh FirstRequestsBenchmark first-requests -f 1 -wi 1 -i 5 -p start=prewarm,no-prewarm ;;
		full:first)
			jmh FirstRequestsBenchmark first-requests ;;
		quick:topology)
			jmh TopologyLookupBenchmark topology "${quick[@]}" ;;
		full:topology)
			jmh TopologyLookupBenchmark topology -f 1 -wi 1 -w 2s -i 5 -r 5s ;;
		quick:scale)
			jmh ClusterSizeBenchmark cluster-size "${quick[@]}" -p masters=3,12 ;;
		full:scale)
			# Every trial starts its own cluster of the size; CPU per call and the topology commands' server cost go
			# to cluster-size-*.csv beside the JSON.
			jmh ClusterSizeBenchmark cluster-size -f 1 -wi 2 -w 3s -i 5 -r 3s ;;
		quick:keyspace|full:keyspace)
			# Scan and cache clear of 200,000 keys; one shot per iteration (each clear is preceded by a refill). The
			# scan at count 1000 and 10 (SCAN's default), with 5 warm-up shots: the first shots of a fresh JVM run
			# interpreted and C1 code and took up to three times as long (KeyspaceCpu, per round). The clear at 1000
			# only: Spring Data Redis's clear in batches of 10 takes many seconds per shot.
			jmh KeyspaceBenchmark keyspace-scan -e clear -bm ss -tu ms -f 1 -wi 5 -i 10 -p count=1000,10
			jmh KeyspaceBenchmark keyspace-clear -e scan -bm ss -tu ms -f 1 -wi 2 -i 10 -p count=1000 ;;
		quick:transaction|full:transaction)
			# A transaction of 10 SETs on one slot: Slotwise on the cluster against plain Boot on one standalone node.
			jmh TransactionBenchmark transaction -f 2 -wi 2 -w 2s -i 5 -r 2s ;;
		quick:nearcache|full:nearcache)
			# The near cache against Slotwise without it (near=off), 8 callers, Zipf keys: get, 90/10 read/write,
			# multiGet(100) at 90% hits, @Cacheable, and a 0%-hit workload. Every trial starts its own cluster.
			jmh NearCacheBenchmark near-cache -f 1 -wi 3 -w 1s -i 6 -r 1s ;;
		quick:cpu|full:cpu)
			# CPU time per call (application and servers), not JMH: a Markdown table, not gated by compare.sh.
			echo "cpu-per-call ..."
			sizes=(100 1000); calls=1000; rounds=5
			[[ $mode == quick ]] && { sizes=(1000); calls=300; rounds=3; }
			for keys in "${sizes[@]}"; do
				java -cp "$jar" dev.slotwise.benchmarks.MultiGetCpu "$keys" "$calls" "$rounds" >"$out/logs/cpu-$keys.log" 2>&1
				sed -n '/^CPU per multiGet/,$p' "$out/logs/cpu-$keys.log" | tee -a "$out/cpu-per-call.md"
			done ;;
	esac
done

if [[ $mode == profile ]]; then
	profilers=(-prof gc -prof "stack:lines=3;top=20;detailLine=true")
	async=${ASYNC_PROFILER_LIB:-$(find /opt /usr/local /usr/lib /root -maxdepth 5 -name libasyncProfiler.so 2>/dev/null | head -n1 || true)}
	if [[ -n $async && -f $async ]]; then
		profilers+=(-prof "async:libPath=$async;output=flamegraph;dir=$out/async-profiler")
	else
		echo "async-profiler not found (set ASYNC_PROFILER_LIB): GC and stack profilers only."
	fi
	jmh "$profile" "profile-$profile" "${quick[@]}" "${profilers[@]}"
	echo "Profiler output (GC churn per operation, hottest stacks per thread state): $out/logs/profile-$profile.log"
fi

# The machine, for whoever compares this run with another.
json() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr -d '\n'; }
os_name=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")
cat >"$out/machine.json" <<EOF
{
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "mode": "$mode",
  "cores": $(nproc),
  "cpu": "$(json "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')")",
  "memory": "$(json "$(grep -m1 MemTotal /proc/meminfo | awk '{printf "%.1f GiB", $2 / 1048576}')")",
  "os": "$(json "$os_name, $(uname -srm)")",
  "jvm": "$(json "$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.vm.name|java.runtime.version/ {printf "%s ", $2}')")",
  "redis": "$(json "$(redis-server --version 2>/dev/null || echo 'redis-server not on PATH (Testcontainers)')")",
  "git_commit": "$commit",
  "git_dirty": $dirty,
  "load_average_start": "$load_start",
  "load_average_end": "$(cut -d' ' -f1-3 /proc/loadavg)",
  "seconds": $(($(date +%s) - started))
}
EOF

java -Djava.awt.headless=true -cp "$jar" dev.slotwise.benchmarks.gate.Summary "$out"
echo "Run folder: $out ($(($(date +%s) - started)) s)"
