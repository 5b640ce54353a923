#!/usr/bin/env bash
# The main job: builds the sample, starts a local real Redis Cluster, runs the sample against it with Slotwise
# and prints what the servers saw, then stops exactly the cluster it started.
#
#   src/demo.sh [--base-port P] [extra Spring Boot arguments, e.g. --spring.data.redis.client-type=lettuce]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

base_port=7100
if [[ ${1:-} == --base-port ]]; then base_port=$2; shift 2; fi
nodes=$(seq -s, -f "127.0.0.1:%g" "$base_port" $((base_port + 5)))

if ! command -v redis-server >/dev/null 2>&1; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "redis-server is missing; installing Debian's package"
		apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server || true
	fi
	command -v redis-server >/dev/null 2>&1 || { echo "Install redis-server first (apt-get install -y redis-server)" >&2; exit 1; }
fi

./mvnw -q -B -pl samples -am package -DskipTests
src/cluster/redis-cluster.sh start --base-port "$base_port"
trap 'src/cluster/redis-cluster.sh stop --base-port "$base_port"' EXIT

java -jar samples/target/slotwise-samples-0.1.0-SNAPSHOT.jar --spring.data.redis.cluster.nodes="$nodes" "$@"
