#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-asan/ and runs each one for a
# bounded time: the Kineto and host ET readers, the Chakra .et reader, the corrections sidecar and a
# job's rank summaries and comm groups,
# seeded from small real traces (and, for Kineto, deeply nested metadata).
# Usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...] (default 60 s; the default targets are
# kinetoreader hostreader etreader sidecar jobsummary; predict runs when named).
# Exit status is non-zero if a target found a crash (the input is kept in build-asan/artifacts/).
set -euo pipefail

seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(kinetoreader hostreader etreader sidecar jobsummary)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LINKSCOPE_ASAN_BUILD:-$root/build-asan}
traces=${LINKSCOPE_TRACES_DIR:-$root/../shared/traces}

# The sanitizer build the core tests run in (clang, ASan + UBSan, coverage for libFuzzer):
# after `scripts/dev sanitize` only the fuzz targets' own sources are left to compile.
LINKSCOPE_ASAN_BUILD=$build "$root/scripts/sanitize-build.sh" "${targets[@]/#/fuzz_}"

# Seeds: the smallest real traces of each kind, decompressed (the fuzzer mutates text better than
# deflate streams), plus one gzip file so the gzip path is covered too.
seed() { # seed DIR FILE...
  local dir=$1; shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] || { echo "seed missing: $f" >&2; continue; }
    local base; base=$(basename "$f")
    case "$f" in
      *.gz) zcat "$f" > "$dir/${base%.gz}"; cp "$f" "$dir/$base" ;;
      *) cp "$f" "$dir/$base" ;;
    esac
  done
}
seed "$build/seeds/kineto" \
  "$traces/hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz" \
  "$traces/hta_kineto_nccl/mi250_minitoy_train_ROCm6_2_kineto.json.gz"
seed "$build/seeds/host" \
  "$traces/hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz" \
  "$traces/param_host_et_only/pt2_et_1.1.1.json.gz"
seed "$build/seeds/et" \
  "$traces/astrasim_chakra_et_examples/microbenchmarks/reduce_scatter/8npus_1MB/reduce_scatter.0.et" \
  "$traces/astrasim_chakra_et_examples/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et"
# Kineto metadata nested deeper than anything bounds (a stack overflow in jsonText once).
deep() { printf '%*s' "$1" '' | tr ' ' '['; printf '%*s' "$1" '' | tr ' ' ']'; }
{ printf '{"deviceProperties": [{"id": 0, "name": '; deep 3000
  printf '}], "distributedInfo": {"backend": '; deep 200
  printf ', "pg_config": [{"pg_desc": '; deep 70
  printf ', "ranks": "[0, 1]"}]}, "traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}'
} > "$build/seeds/kineto/deep_metadata.json"
# The prediction's inputs: a selector byte, then a network file, a comm group file or a .et
# (fuzz/fuzz_predict.cpp); fuzz/seeds/sample_astra.et is the bundled sample's astra-sim export.
mkdir -p "$build/seeds/predict"
printf '\000topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 229.681 ]  # GB/s\nlatency: [ 544.657 ]  # ns\n' > "$build/seeds/predict/network.yml"
printf '\001{"1": [0, 1], "5": [2, 3, 4]}' > "$build/seeds/predict/comm_group.json"
for f in "$build"/seeds/et/*.et "$root"/fuzz/seeds/*.et; do
  [ -f "$f" ] && { printf '\003'; cat "$f"; } > "$build/seeds/predict/$(basename "$f")"
done
# A job's summaries and comm groups (fuzz/fuzz_jobsummary.cpp): a selector byte ('0' one summary,
# '1' two separated by a form feed, '2' a comm group file), then the text.
mkdir -p "$build/seeds/jobsummary"
summary() { # summary RANK WORLD_SIZE ELEMENTS
  printf '{"linkscope_rank_summary": 1, "rank": %s, "host": "host_%s.json", "device": "kineto_%s.json", "declared_rank": %s, "world_size": %s, "gpu_ops": 12, "linked": 11, "findings": {"host_op_without_device_op": 2}, "et": "trace.%s.et", "note": "", "error": "", "process_groups": [{"name": "0", "desc": "default_pg", "ranks": [0, 1, 2, 3], "size": 4}, {"name": "5", "desc": "tp", "ranks": [0, 1], "size": 2}], "calls": [{"pg": "0", "kind": "all_reduce", "dtype": "float32", "elements": %s, "bytes": 4096, "launch_ns": 100, "start_ns": 120, "end_ns": 900, "where": "kineto_%s.json event 7"}, {"pg": "5", "kind": "send", "bytes": 64, "peer": 1, "launch_ns": 1000}, {"pg": "5", "kind": "broadcast", "elements": 16, "root": 0}]}' \
    "$1" "$1" "$1" "$1" "$2" "$1" "$3" "$1"
}
{ printf '0'; summary 0 4 1024; } > "$build/seeds/jobsummary/one.txt"
{ printf '1'; summary 0 4 1024; printf '\f'; summary 1 4 2048; } > "$build/seeds/jobsummary/two.txt"
{ printf '1'; summary 0 1000000 1024; printf '\f'; summary 7 8 1024; } > "$build/seeds/jobsummary/wide.txt"
printf '2{"1": [0, 1], "5": [0, 1], "7": [0, 0, 3]}' > "$build/seeds/jobsummary/groups.txt"
# Sidecars: the format's every kind of edit and key (docs/sidecar-format.md).
mkdir -p "$build/seeds/sidecar"
cp "$root/fuzz/seeds/"*.linkscope.json "$build/seeds/sidecar/"

status=0
mkdir -p "$build/artifacts"
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  case "$target" in
    kinetoreader) dict=(-dict="$root/fuzz/kineto.dict"); seeds="$build/seeds/kineto" ;;
    hostreader) dict=(-dict="$root/fuzz/host.dict"); seeds="$build/seeds/host" ;;
    etreader) dict=(); seeds="$build/seeds/et" ;;
    sidecar) dict=(-dict="$root/fuzz/sidecar.dict"); seeds="$build/seeds/sidecar" ;;
    predict) dict=(); seeds="$build/seeds/predict" ;;
    jobsummary) dict=(-dict="$root/fuzz/jobsummary.dict"); seeds="$build/seeds/jobsummary" ;;
    *) echo "unknown fuzz target: $target" >&2; exit 2 ;;
  esac
  echo "== fuzz_$target for ${seconds}s"
  if ! "$build/fuzz/fuzz_$target" "$corpus" "$seeds" \
      -max_total_time="$seconds" -max_len=131072 -timeout=20 -rss_limit_mb=4096 \
      "${dict[@]}" -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 2>"$build/fuzz_$target.log"; then
    echo "fuzz_$target FAILED: see $build/fuzz_$target.log and $build/artifacts/" >&2
    tail -40 "$build/fuzz_$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$build/fuzz_$target.log" | tail -3
  fi
done
exit $status
