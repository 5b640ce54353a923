#!/usr/bin/env bash
# Starts, stops and reports a local Redis Cluster of redis-server processes on loopback, for people, the demo and
# the benchmarks. Tests use the Java equivalent (dev.slotwise.test.cluster.RedisTestCluster).
#
#   src/cluster/redis-cluster.sh start  [--base-port P] [--masters M] [--replicas R]
#   src/cluster/redis-cluster.sh stop   [--base-port P]
#   src/cluster/redis-cluster.sh status [--base-port P]
#
# Nodes listen on 127.0.0.1, ports P .. P+M*(1+R)-1 (default 7100, 3 masters, 1 replica each), with their cluster
# bus on port + 10000, set explicitly (cluster-port). Each node's data, log and pid live in .cluster/<P>/<port>/
# under the repository; stop kills exactly the pids recorded there. Port 6379 is never used, and no port (client
# or bus) may lie in the machine's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range), where any outgoing
# connection could take it before redis-server binds it.
set -euo pipefail

command_name=${1:-}
shift || true
base_port=7100
masters=3
replicas=1
while (($#)); do
	case "$1" in
		--base-port) base_port=$2; shift 2 ;;
		--masters) masters=$2; shift 2 ;;
		--replicas) replicas=$2; shift 2 ;;
		*) echo "Unknown option: $1" >&2; exit 2 ;;
	esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cluster_dir="$root/.cluster/$base_port"
count=$((masters * (1 + replicas)))
last_port=$((base_port + count - 1))

fail() { echo "redis-cluster: $*" >&2; exit 1; }

ports() { seq "$base_port" "$last_port"; }

recorded_ports() { [[ -d $cluster_dir ]] && ls "$cluster_dir" | grep -E '^[0-9]+$' | sort -n || true; }

is_ours_running() { # port
	local pidfile="$cluster_dir/$1/redis.pid"
	[[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start() {
	command -v redis-server >/dev/null || fail "redis-server not found; install it with 'apt-get install -y redis-server'"
	command -v redis-cli >/dev/null || fail "redis-cli not found; install it with 'apt-get install -y redis-tools'"
	((base_port > 1024 && last_port + 10000 < 65536)) || fail "ports $base_port..$last_port (+10000 for the bus) are out of range"
	((base_port > 6379 || last_port < 6379)) || fail "the port range must not include 6379"
	if [[ -r /proc/sys/net/ipv4/ip_local_port_range ]]; then
		local ephemeral_first ephemeral_last
		read -r ephemeral_first ephemeral_last </proc/sys/net/ipv4/ip_local_port_range
		for first in "$base_port" $((base_port + 10000)); do
			local last=$((first + count - 1))
			if ((first <= ephemeral_last && last >= ephemeral_first)); then
				fail "ports $first..$last lie in the ephemeral range $ephemeral_first-$ephemeral_last, where outgoing connections take their port; choose another --base-port"
			fi
		done
	fi
	for port in $(ports); do
		if is_ours_running "$port"; then fail "node $port already runs; stop it first"; fi
		if redis-cli -p "$port" ping >/dev/null 2>&1; then fail "port $port is taken by a process this script did not start"; fi
	done
	rm -rf "$cluster_dir"
	for port in $(ports); do
		mkdir -p "$cluster_dir/$port"
		redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes --cluster-port $((port + 10000)) \
			--cluster-config-file nodes.conf \
			--cluster-node-timeout 1500 --dir "$cluster_dir/$port" --save "" --appendonly no --protected-mode no \
			--daemonize yes --pidfile "$cluster_dir/$port/redis.pid" --logfile "$cluster_dir/$port/redis.log"
	done
	for port in $(ports); do
		for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
	done
	local addresses=()
	for port in $(ports); do addresses+=("127.0.0.1:$port"); done
	redis-cli --cluster create "${addresses[@]}" --cluster-replicas "$replicas" --cluster-yes >"$cluster_dir/create.log" 2>&1 \
		|| { cat "$cluster_dir/create.log" >&2; stop; fail "could not form the cluster"; }
	for port in $(ports); do
		for _ in $(seq 200); do
			redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && break
			sleep 0.05
		done
		redis-cli -p "$port" cluster info | grep -q 'cluster_state:ok' || { stop; fail "node $port did not reach cluster_state:ok"; }
	done
	echo "Redis Cluster of $masters masters and $((masters * replicas)) replicas is up on 127.0.0.1:$base_port-$last_port"
	echo "spring.data.redis.cluster.nodes=$(IFS=,; echo "${addresses[*]}")"
}

stop() {
	local stopped=0
	for port in $(recorded_ports); do
		local pidfile="$cluster_dir/$port/redis.pid"
		if is_ours_running "$port"; then
			local pid
			pid=$(cat "$pidfile")
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
			kill -9 "$pid" 2>/dev/null || true
			stopped=$((stopped + 1))
		fi
	done
	rm -rf "$cluster_dir"
	echo "Stopped $stopped node(s) of the cluster on base port $base_port"
}

status() {
	local running=0
	for port in $(recorded_ports); do
		if is_ours_running "$port"; then
			running=$((running + 1))
			local role state
			role=$(redis-cli -p "$port" role 2>/dev/null | head -1)
			state=$(redis-cli -p "$port" cluster info 2>/dev/null | tr -d '\r' | grep cluster_state || echo "cluster_state:unknown")
			echo "127.0.0.1:$port $role $state"
		else
			echo "127.0.0.1:$port not running"
		fi
	done
	((running > 0)) || { echo "No cluster on base port $base_port"; return 3; }
}

case "$command_name" in
	start) start ;;
	stop) stop ;;
	status) status ;;
	*) echo "Usage: $0 start|stop|status [--base-port P] [--masters M] [--replicas R]" >&2; exit 2 ;;
esac
