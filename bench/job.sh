#!/usr/bin/env bash
# `linkscope job` on a generated 8-rank job against 8 sequential single-rank `linkscope export` runs:
# wall time and peak RSS of each, under /usr/bin/time -v.
#
#   bench/job.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR defaults to ./build (must hold tools/linkscope-gen and app/linkscope); OUT_DIR to
# /tmp/linkscope-job-bench. LINKSCOPE_JOB_EVENTS sets the Kineto events per rank (default 1000000),
# LINKSCOPE_JOB_RANKS the world size (default 8). The job is regenerated only when missing or made
# with other parameters. Figures are only as good as the machine is idle: the load average is printed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-/tmp/linkscope-job-bench}
events=${LINKSCOPE_JOB_EVENTS:-1000000}
ranks=${LINKSCOPE_JOB_RANKS:-8}
seed=3

gen="$build/tools/linkscope-gen"
linkscope="$build/app/linkscope"
for tool in "$gen" "$linkscope"; do
    [[ -x $tool ]] || { echo "job.sh: $tool not built (ninja -C $build linkscope-gen linkscope)" >&2; exit 2; }
done

mkdir -p "$out"
job="$out/job"
params="ranks=$ranks events=$events seed=$seed generator=$(sha256sum "$gen" | cut -c1-16)"
if [[ ! -s $job/kineto_$((ranks - 1)).json || "$(cat "$out/params" 2>/dev/null)" != "$params" ]]; then
    rm -rf "$job"
    echo "== generate ($params)"
    echo "\$ $gen --ranks $ranks --out-dir $job --target-events $events --seed $seed --straggler 5 --jobs 2"
    "$gen" --ranks "$ranks" --out-dir "$job" --target-events "$events" --seed "$seed" --straggler 5 --jobs 2
    echo "$params" > "$out/params"
fi
du -sh "$job"
ls -l "$job/host_0.json" "$job/kineto_0.json"
cat "$job"/*.json > /dev/null # warm the page cache

# Runs a command under /usr/bin/time -v; prints wall seconds, peak RSS (MB) and CPU seconds (user + sys).
measure() {
    local log
    log=$(mktemp)
    /usr/bin/time -v "$@" > /dev/null 2> "$log" || { cat "$log" >&2; rm -f "$log"; return 1; }
    local wall rss cpu
    cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$log")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$log")
    rm -f "$log"
    echo "$wall $rss $cpu"
}

echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== sequential: $ranks x linkscope export --host host_R.json --device kineto_R.json --target astra-sim --et seq/trace.R.et"
mkdir -p "$out/seq"
seq_wall=0
seq_rss=0
seq_cpu=0
for ((r = 0; r < ranks; r++)); do
    read -r wall rss cpu < <(measure "$linkscope" export --host "$job/host_$r.json" --device "$job/kineto_$r.json" --target astra-sim --et "$out/seq/trace.$r.et")
    echo "   rank $r: ${wall} s, peak RSS ${rss} MB, CPU ${cpu} s"
    seq_wall=$(awk -v a="$seq_wall" -v b="$wall" 'BEGIN {print a + b}')
    seq_cpu=$(awk -v a="$seq_cpu" -v b="$cpu" 'BEGIN {print a + b}')
    (( rss > seq_rss )) && seq_rss=$rss
done
echo "   total ${seq_wall} s (CPU ${seq_cpu} s), largest single-rank peak RSS ${seq_rss} MB"
# The practical limit of the speed-up: a single export already keeps seq_cpu / seq_wall cores busy,
# so N cores running the same CPU work can be at most N / that faster than the sequential runs.
cores=$(nproc)
busy=$(awk -v c="$seq_cpu" -v w="$seq_wall" 'BEGIN {printf "%.2f", c / w}')
limit=$(awk -v n="$cores" -v c="$seq_cpu" -v w="$seq_wall" 'BEGIN {printf "%.2f", n * w / c}')
echo "   one export keeps ${busy} cores busy: on ${cores} cores the same CPU work can be at most ${limit}x faster than these runs"

for jobs in 1 2; do
    rm -rf "$out/job$jobs"
    echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "== $linkscope job $job --out $out/job$jobs --jobs $jobs"
    read -r wall rss cpu < <(measure "$linkscope" job "$job" --out "$out/job$jobs" --jobs "$jobs")
    speed=$(awk -v a="$seq_wall" -v b="$wall" 'BEGIN {printf "%.2f", a / b}')
    ratio=$(awk -v a="$rss" -v b="$seq_rss" 'BEGIN {printf "%.2f", a / b}')
    echo "   --jobs $jobs: ${wall} s (${speed}x the sequential runs; limit ${limit}x), CPU ${cpu} s, peak RSS ${rss} MB (${ratio}x one rank's)"
    cmp -s "$out/seq/trace.0.et" "$out/job$jobs/trace.0.et" && echo "   trace.0.et identical to the single-rank export"
done
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
