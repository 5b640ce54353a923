#!/usr/bin/env bash
# build.sh <commit> : scratch checkout /work/bisect-<commit>, benchmarks.jar built (package, never install)
set -euo pipefail
c=$1; d=/work/bisect-$c
[[ -d $d ]] || git -C /work/wt-bisect worktree add --detach "$d" "$c" >/dev/null 2>&1
cd "$d"; nice -n 10 ./mvnw -B -o -q -pl benchmarks -am package -DskipTests -Dspring-boot.version=4.1.2 -Dspring-boot-autoconfigure-processor.version=4.1.2 2>&1 | grep ERROR | head -3 || true
ls "$d/benchmarks/target/benchmarks.jar"
