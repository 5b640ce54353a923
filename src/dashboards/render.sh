#!/usr/bin/env bash
# Makes the dashboard picture in docs/meters.md from a real run, without Grafana (Debian does not package it):
# a local cluster, the sample with Slotwise under load (multiGets of 100 to 10,000 keys, random reads, and the
# sample's /demo/workload: pipelines, transactions, sharded pub/sub, scans and cache clears), Prometheus from
# Debian's package scraping it every 5s, a reshard of 500 slots half-way (so that redirects, topology refreshes and
# pub/sub resubscriptions show), then render.py draws every panel of slotwise-dashboard.json with the dashboard's
# own queries against that Prometheus.
#
#   src/dashboards/render.sh [--minutes M] [--client jedis|lettuce] [--base-port P] [--http-port H]
#                            [--prometheus-port Q] [--no-build]
#
# Needs: Java 17+, curl, redis-server and redis-cli, prometheus, python3 with matplotlib. On Debian or Ubuntu:
#   apt-get install -y redis-server prometheus python3-matplotlib curl
# (run as root, the script installs prometheus and python3-matplotlib itself when they are missing). The Maven build
# of the sample needs its dependencies (online, or cached for --no-build with a jar built beforehand).
# The pipelines, executor and pool rows are Jedis's: with --client lettuce they stay empty.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
minutes=6
client=jedis
base_port=7400
http_port=8480
prometheus_port=9491
build=true
while (($#)); do
	case "$1" in
		--minutes) minutes=$2; shift 2 ;;
		--client) client=$2; shift 2 ;;
		--base-port) base_port=$2; shift 2 ;;
		--http-port) http_port=$2; shift 2 ;;
		--prometheus-port) prometheus_port=$2; shift 2 ;;
		--no-build) build=false; shift ;;
		*) echo "Unknown option: $1" >&2; exit 2 ;;
	esac
done
has_matplotlib() { /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; }
if { ! command -v prometheus >/dev/null || ! has_matplotlib; } && ((EUID == 0)) && command -v apt-get >/dev/null; then
	echo "Installing prometheus and python3-matplotlib..."
	apt-get install -y prometheus python3-matplotlib >/dev/null
fi
for tool in java redis-server redis-cli prometheus curl /usr/bin/python3; do
	command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y redis-server prometheus python3-matplotlib curl)" >&2; exit 1; }
done
has_matplotlib || { echo "matplotlib is missing (apt-get install -y python3-matplotlib)" >&2; exit 1; }
nodes=$(seq -s, -f "127.0.0.1:%g" "$base_port" $((base_port + 5)))
work=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	src/cluster/redis-cluster.sh stop --base-port "$base_port" || true
	rm -rf "$work"
}
trap cleanup EXIT

if $build; then
	./mvnw -q -B -pl samples -am package -DskipTests
fi
src/cluster/redis-cluster.sh start --base-port "$base_port"
java -jar samples/target/slotwise-samples-0.1.0-SNAPSHOT.jar --server.port="$http_port" \
	--spring.data.redis.cluster.nodes="$nodes" --spring.data.redis.client-type="$client" \
	--slotwise.near-cache.enabled=true --slotwise.near-cache.key-prefixes=product: >"$work/sample.log" 2>&1 &
pids+=($!)
cat >"$work/prometheus.yml" <<EOT
global: { scrape_interval: 5s, evaluation_interval: 5s }
scrape_configs:
  - job_name: slotwise-sample
    metrics_path: /actuator/prometheus
    static_configs: [ { targets: ["127.0.0.1:$http_port"] } ]
EOT
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$prometheus_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do
	curl -fs "http://127.0.0.1:$http_port/actuator/health" 2>/dev/null | grep -q '"status":"UP"}$' && break
	sleep 0.2
done
curl -fs -X POST "http://127.0.0.1:$http_port/products/load?count=10000" >/dev/null

end=$((SECONDS + minutes * 60))
half=$((SECONDS + minutes * 30))
( while ((SECONDS < end)); do
	for keys in 100 1000 10000; do
		curl -fs "http://127.0.0.1:$http_port/demo/multiget?keys=$keys&seconds=20&warmup=0" >/dev/null || true
	done
done ) &
pids+=($!)
( while ((SECONDS < end)); do
	curl -fs "http://127.0.0.1:$http_port/products/random?count=500" >/dev/null || true
	sleep 0.1
done ) &
pids+=($!)
( while ((SECONDS < end)); do
	curl -fs "http://127.0.0.1:$http_port/demo/workload?seconds=20" >>"$work/workload.log" || true
	echo >>"$work/workload.log"
done ) &
pids+=($!)
while ((SECONDS < half)); do sleep 1; done
from=$(redis-cli -p "$base_port" cluster myid | tr -d '\r')
to=$(redis-cli -p $((base_port + 1)) cluster myid | tr -d '\r')
echo "Resharding 500 slots while the load runs..."
redis-cli --cluster reshard "127.0.0.1:$base_port" --cluster-from "$from" --cluster-to "$to" --cluster-slots 500 \
	--cluster-yes >"$work/reshard.log" 2>&1 || echo "reshard failed: $(tail -3 "$work/reshard.log")"
while ((SECONDS < end)); do sleep 1; done
sleep 10
echo "Workload runs:"
cat "$work/workload.log"
/usr/bin/python3 src/dashboards/render.py --prometheus "http://127.0.0.1:$prometheus_port" --minutes "$minutes" \
	--out src/dashboards/slotwise-dashboard.png
