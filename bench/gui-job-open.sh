#!/usr/bin/env bash
# Time to the job overview's first rank row and to all ranks of a job in the GUI (offscreen), and
# `linkscope job` on the same folder for comparison.
#
#   bench/gui-job-open.sh LINKSCOPE [JOB_DIR] [RUNS]
#
# LINKSCOPE is the linkscope binary to time (main's build, a branch's); JOB_DIR defaults to
# megatron's 8-rank job (/work/shared/traces/astrasim_megatron_tp8_8rank_pair); RUNS to 3. Each run
# starts the GUI as `linkscope JOB_DIR --screenshot F --size 1400x900` with its own empty settings
# (no saved layout), which prints when the job is drawn whole; a binary that also prints its first
# row ("first rank row after …", since issue 28) gives that figure too, an older one "n/a". Times
# are from the QApplication's start, as the GUI counts them. The load average is printed: figures
# are only as good as the machine is idle.
set -euo pipefail

bin=${1:?usage: bench/gui-job-open.sh LINKSCOPE [JOB_DIR] [RUNS]}
job=${2:-/work/shared/traces/astrasim_megatron_tp8_8rank_pair}
runs=${3:-3}
[[ -x $bin ]] || { echo "gui-job-open.sh: $bin is not an executable" >&2; exit 2; }
[[ -d $job ]] || { echo "gui-job-open.sh: no job folder $job" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$job"/* > /dev/null # warm the page cache

echo "== $bin on $job ($runs runs), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
firsts=()
alls=()
for ((i = 1; i <= runs; i++)); do
    rm -rf "$tmp/config" "$tmp/data"
    log="$tmp/run$i.log"
    start=$(date +%s.%N)
    XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" QT_QPA_PLATFORM=offscreen \
        "$bin" "$job" --screenshot "$tmp/shot.png" --size 1400x900 2> "$log" || { cat "$log" >&2; exit 1; }
    end=$(date +%s.%N)
    first=$(sed -n 's/^linkscope: first rank row after \([0-9.]*\) s$/\1/p' "$log" | head -1)
    all=$(sed -n 's/^linkscope: job overview drawn after \([0-9.]*\) s;.*/\1/p' "$log" | head -1)
    [[ -n $all ]] || { echo "gui-job-open.sh: run $i printed no 'job overview drawn' line:" >&2; cat "$log" >&2; exit 1; }
    firsts+=("${first:-n/a}")
    alls+=("$all")
    printf 'run %d: first row %s s, all ranks %s s (process %.2f s)\n' "$i" "${first:-n/a}" "$all" "$(echo "$end - $start" | bc)"
done

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR + 1) / 2)] : "n/a")}'; }
if [[ ${firsts[0]} == n/a ]]; then first_median=n/a; else first_median=$(median "${firsts[@]}"); fi
echo "RESULT gui_job_first_row=$first_median s"
echo "RESULT gui_job_all_ranks=$(median "${alls[@]}") s"

# The CLI's figure on the same folder: every rank linked, exported and checked, the report written.
start=$(date +%s.%N)
"$bin" job "$job" --out "$tmp/cli" > /dev/null 2> "$tmp/cli.log" || { cat "$tmp/cli.log" >&2; exit 1; }
end=$(date +%s.%N)
printf 'RESULT cli_job=%.2f s\n' "$(echo "$end - $start" | bc)"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
