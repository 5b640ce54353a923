#!/usr/bin/env bash
# The main job: starts a local real Redis Cluster and the sample application twice on it — with Slotwise and with
# Slotwise off (plain Spring Data Redis) — loads a catalogue of products, and after a warm-up prints multiGet
# latency and calls per second at 100, 1,000 and 10,000 keys side by side, with the commands the servers executed
# per call (per-key GETs vs per-slot MGETs, from INFO commandstats). Then it stops everything it started, or, with
# --serve, keeps the applications running and prints their URLs until Ctrl-C.
#
#   src/demo.sh [--client jedis|lettuce] [--serve] [--seconds S] [--warmup W] [--base-port P] [--http-port H]
#               [extra Spring Boot arguments for both applications, e.g. --slotwise.executor.threads=8]
#
# A demonstration on one machine, one calling thread, one short run: the figures the project quotes come from the
# JMH benchmarks in benchmarks/ (baseline in the same run, with error bars).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

client=jedis
serve=false
seconds=3
warmup=2
base_port=7100
http_port=8080
spring_args=()
while (($#)); do
	case "$1" in
		--client) client=$2; shift 2 ;;
		--serve) serve=true; shift ;;
		--seconds) seconds=$2; shift 2 ;;
		--warmup) warmup=$2; shift 2 ;;
		--base-port) base_port=$2; shift 2 ;;
		--http-port) http_port=$2; shift 2 ;;
		--spring.data.redis.client-type=*) client=${1#*=}; shift ;;
		*) spring_args+=("$1"); shift ;;
	esac
done
[[ $client == jedis || $client == lettuce ]] || { echo "--client must be jedis or lettuce, was $client" >&2; exit 2; }
off_port=$((http_port + 1))
node_ports=$(seq "$base_port" $((base_port + 5)))
nodes=$(seq -s, -f "127.0.0.1:%g" "$base_port" $((base_port + 5)))

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "redis-server is missing; installing Debian's package"
		apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server || true
	fi
	command -v redis-server >/dev/null 2>&1 || { echo "Install redis-server first (apt-get install -y redis-server)" >&2; exit 1; }
fi
command -v curl >/dev/null 2>&1 || { echo "curl is needed (apt-get install -y curl)" >&2; exit 1; }

echo "Building the sample..."
./mvnw -q -B -pl samples -am package -DskipTests
jar=samples/target/slotwise-samples-0.1.0-SNAPSHOT.jar
log_dir="$root/.cluster/demo"
mkdir -p "$log_dir"

pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	src/cluster/redis-cluster.sh stop --base-port "$base_port" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

src/cluster/redis-cluster.sh start --base-port "$base_port"

start_app() { # name port extra-args...
	local name=$1 port=$2
	shift 2
	java -jar "$jar" --server.port="$port" --spring.data.redis.cluster.nodes="$nodes" \
		--spring.data.redis.client-type="$client" --spring.application.name="$name" ${spring_args[@]+"${spring_args[@]}"} "$@" \
		>"$log_dir/$name.log" 2>&1 &
	pids+=($!)
}
await_up() { # port
	for _ in $(seq 600); do
		curl -fs "http://127.0.0.1:$1/actuator/health" 2>/dev/null | grep -q '"status":"UP"}$' && return 0
		sleep 0.2
	done
	echo "The sample on port $1 did not start; see $log_dir" >&2
	exit 1
}
echo "Starting the sample with Slotwise (port $http_port) and without (port $off_port), over $client..."
start_app slotwise-sample "$http_port"
start_app slotwise-sample-off "$off_port" --slotwise.enabled=false
await_up "$http_port"
await_up "$off_port"

curl -fs -X POST "http://127.0.0.1:$http_port/products/load?count=10000" >/dev/null
echo "Loaded 10,000 products. Measuring: ${warmup}s warm-up, then ${seconds}s of back-to-back multiGets on one thread."

field() { grep -o "\"$2\":[0-9.eE+-]*" <<<"$1" | head -1 | cut -d: -f2; }
server_calls() { # command
	local total=0 calls
	for port in $node_ports; do
		calls=$(redis-cli -p "$port" info commandstats | tr -d '\r' | grep "^cmdstat_$1:" | sed 's/^[^:]*:calls=\([0-9]*\),.*/\1/' || true)
		total=$((total + ${calls:-0}))
	done
	echo "$total"
}
measure() { # port keys -> "p50 p99 calls/s gets/call mgets/call"
	for port in $node_ports; do redis-cli -p "$port" config resetstat >/dev/null; done
	local run
	run=$(curl -fs "http://127.0.0.1:$1/demo/multiget?keys=$2&seconds=$seconds&warmup=$warmup")
	local gets mgets
	gets=$(server_calls get)
	mgets=$(server_calls mget)
	# The servers counted the warm-up calls too.
	awk -v p50="$(field "$run" p50Micros)" -v p99="$(field "$run" p99Micros)" -v cps="$(field "$run" callsPerSecond)" \
		-v gets="$gets" -v mgets="$mgets" -v all="$(( $(field "$run" calls) + $(field "$run" warmupCalls) ))" \
		'BEGIN { printf "%s %s %s %.0f %.0f\n", p50, p99, cps, gets / all, mgets / all }'
}
ms() { awk -v us="$1" 'BEGIN { if (us >= 100000) printf "%.0f ms", us / 1000; else if (us >= 1000) printf "%.1f ms", us / 1000; else printf "%.0f µs", us }'; }

results=()
for keys in 100 1000 10000; do
	on=$(measure "$http_port" "$keys")
	off=$(measure "$off_port" "$keys")
	results+=("$keys $on $off")
done

echo
echo "multiGet of N random products (cross-slot keys), $client, one calling thread; server commands per call from INFO commandstats"
printf '%-7s | %-22s | %-22s | %-9s | %-17s | %-17s\n' "keys" "p50 (p99) Slotwise" "p50 (p99) Slotwise off" "p50 ratio" "calls/s on / off" "GET+MGET per call"
printf '%-7s | %-22s | %-22s | %-9s | %-17s | %-17s\n' "" "" "" "" "" "on / off"
printf -- '--------+------------------------+------------------------+-----------+-------------------+------------------------------\n'
for line in "${results[@]}"; do
	read -r keys p50 p99 cps gets mgets p50off p99off cpsoff getsoff mgetsoff <<<"$line"
	ratio=$(awk -v a="$p50off" -v b="$p50" 'BEGIN { printf "%.1fx", a / b }')
	printf '%-7s | %-22s | %-22s | %-9s | %-17s | %s\n' "$keys" "$(ms "$p50") ($(ms "$p99"))" "$(ms "$p50off") ($(ms "$p99off"))" \
		"$ratio" "$(printf '%.0f / %.0f' "$cps" "$cpsoff")" "${gets} GET + ${mgets} MGET / ${getsoff} GET + ${mgetsoff} MGET"
done
echo
echo "(A demonstration, not a benchmark: one short run on this machine. JMH figures with error bars: docs/benchmarks.md.)"

if [[ $serve == true ]]; then
	cat <<EOT

Running until Ctrl-C:
  Slotwise on      http://127.0.0.1:$http_port/products/random?count=1000
  Slotwise off     http://127.0.0.1:$off_port/products/random?count=1000
  health           http://127.0.0.1:$http_port/actuator/health
  Prometheus       http://127.0.0.1:$http_port/actuator/prometheus   (and :$off_port)
  Redis Cluster    $nodes
  Grafana          docker compose -f src/docker-compose.yml up, then http://localhost:3000
  logs             $log_dir
EOT
	wait
fi
