#!/usr/bin/env bash
# Exports jobs with `linkscope export --target astra-sim`, replays them on the ASTRA-sim of
# ../shared/tools/astra-sim and prints, per rank, the simulated time, the measured time (the rank's
# profiled iteration in its Kineto trace: `measured_ns` of the export report) and their ratio.
#
#   bench/astrasim.sh [BUILD_DIR] [OUT_DIR] [JOB...]
#
# JOB: megatron (astrasim_megatron_tp8_8rank_pair), dlrm (param_dlrm_8rank_pair), generated (a
# linkscope-gen job); all three by default. EXPORT_FLAGS (environment) is passed to every export,
# e.g. EXPORT_FLAGS="--no-pg-order" to see what one dependency kind changes. LINKSCOPE_TRACES_DIR and
# ASTRA_SIM_TOOLS override ../shared/traces and ../shared/tools/astra-sim; GENERATED_GEN_ARGS the
# generated job's linkscope-gen options (default --steps 3 --seed 5). ASTRA_SIM_HOME (read by run.sh)
# selects another simulator build, e.g. the one tests/astrasim/fixed-simulator.sh makes. Each job's
# header gives the simulator's exit status: 0 only if it also tore down cleanly.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
out=$(realpath -m "${2:-/tmp/linkscope-astrasim}")
shift $(($# > 2 ? 2 : $#))
jobs=("$@")
((${#jobs[@]})) || jobs=(megatron dlrm generated)
traces=${LINKSCOPE_TRACES_DIR:-$root/../shared/traces}
sim=${ASTRA_SIM_TOOLS:-$root/../shared/tools/astra-sim}
linkscope=$build/app/linkscope
gen=$build/tools/linkscope-gen
[ -x "$linkscope" ] || { echo "astrasim.sh: no $linkscope (build first)" >&2; exit 2; }
[ -x "$sim/run.sh" ] || { echo "astrasim.sh: no $sim/run.sh" >&2; exit 2; }
mkdir -p "$out"
# run.sh makes a folder with mktemp even when it is given a log folder: those go under OUT, removed
# at the end.
export TMPDIR=$out/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
read -r -a flags <<<"${EXPORT_FLAGS:-}"

# replay NAME NPUS [--comm-groups FILE]: $out/NAME/et.R.et exported, $out/NAME/measured.R holds measured_ns.
replay() {
  local name=$1 npus=$2; shift 2
  local dir=$out/$name
  "$linkscope" check "$dir"/et.*.et "$@" >"$dir/check.txt" || { echo "$name: linkscope check failed:"; cat "$dir/check.txt"; return 1; }
  local started=$SECONDS status=0
  "$sim/run.sh" "$dir/et" "$npus" "$dir/log" "$@" >"$dir/replay.txt" 2>&1 || status=$?
  echo "== $name ($npus ranks, replay $((SECONDS - started)) s, exit status $status, export flags: ${EXPORT_FLAGS:-none})"
  printf '%-5s %14s %13s %7s\n' rank simulated_ms measured_ms ratio
  local r
  for ((r = 0; r < npus; r++)); do
    local cycles measured
    cycles=$(grep -o "sys\[$r\] finished, [0-9]* cycles" "$dir/replay.txt" | grep -o '[0-9]* cycles' | cut -d' ' -f1 || true)
    measured=$(cat "$dir/measured.$r")
    if [ -z "$cycles" ]; then
      printf '%-5s %14s %13.3f %7s\n' "$r" "unfinished" "$(echo "$measured / 1000000" | bc -l)" "-"
    else
      printf '%-5s %14.3f %13.3f %7.3f\n' "$r" "$(echo "$cycles / 1000000" | bc -l)" "$(echo "$measured / 1000000" | bc -l)" \
        "$(echo "$cycles / $measured" | bc -l)"
    fi
  done
}

# export_rank NAME R HOST KINETO [extra export args]
export_rank() {
  local name=$1 r=$2 host=$3 kineto=$4; shift 4
  local dir=$out/$name
  mkdir -p "$dir"
  "$linkscope" export --host "$host" --device "$kineto" --et "$dir/et.$r.et" --target astra-sim --report "${flags[@]}" "$@" \
    >"$dir/report.$r.json" 2>"$dir/export.$r.txt"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chakra"]["measured_ns"])' "$dir/report.$r.json" >"$dir/measured.$r"
  local linked
  linked=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["etplus"]["linked_host_nodes"])' "$dir/report.$r.json")
  if [ "$linked" = 0 ]; then
    echo "$name rank $r does not convert: no host ET node joins a Kineto op (nothing has a duration to replay)" >&2
    return 1
  fi
}

for job in "${jobs[@]}"; do
  case $job in
    megatron)
      rm -rf "$out/megatron"
      for r in 0 1 2 3 4 5 6 7; do
        export_rank megatron "$r" "$traces/astrasim_megatron_tp8_8rank_pair/megatron_et_$r.json.gz" \
          "$traces/astrasim_megatron_tp8_8rank_pair/megatron_kineto_$r.json.gz"
      done
      replay megatron 8 ;;
    dlrm)
      rm -rf "$out/dlrm"
      mkdir -p "$out/dlrm/src"
      tar -xzf "$traces/param_dlrm_8rank_pair/dlrm_pytorch_et.tar.gz" -C "$out/dlrm/src"
      tar -xzf "$traces/param_dlrm_8rank_pair/dlrm_kineto.tar.gz" -C "$out/dlrm/src"
      ok=1
      for r in 0 1 2 3 4 5 6 7; do
        host=$(find "$out/dlrm/src" -name "dlrm_eg_$r.json" | head -1)
        kineto=$(find "$out/dlrm/src" -name "worker${r}_step_*.json" | head -1)
        export_rank dlrm "$r" "$host" "$kineto" || ok=0
      done
      if ((ok)); then replay dlrm 8; else echo "== dlrm: not replayed (see above)"; fi ;;
    generated)
      # linkscope-gen --ranks: tensor- and data-parallel groups, send/recv, ProfilerStep#N wrappers.
      rm -rf "$out/generated"
      ranks=${GENERATED_RANKS:-8}
      read -r -a genargs <<<"${GENERATED_GEN_ARGS:---steps 3 --seed 5}"
      "$gen" --ranks "$ranks" --out-dir "$out/generated/src" "${genargs[@]}" >/dev/null
      for ((r = 0; r < ranks; r++)); do
        export_rank generated "$r" "$out/generated/src/host_$r.json" "$out/generated/src/kineto_$r.json"
      done
      # The groups the ranks declare, by id, without group 0 (every rank already; ASTRA-sim asserts id > 0).
      python3 - "$out/generated" "$ranks" <<'PY'
import json, sys
out, ranks = sys.argv[1], int(sys.argv[2])
groups = {}
for r in range(ranks):
    for g in json.load(open(f"{out}/src/kineto_{r}.json"))["distributedInfo"]["pg_config"]:
        groups[int(g["pg_name"])] = g["ranks"]
groups.pop(0, None)
json.dump({str(k): v for k, v in sorted(groups.items())}, open(f"{out}/comm_group.json", "w"))
PY
      replay generated "$ranks" --comm-groups "$out/generated/comm_group.json" ;;
    *) echo "astrasim.sh: unknown job $job (megatron, dlrm, generated)" >&2; exit 2 ;;
  esac
done
