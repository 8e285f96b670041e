#!/usr/bin/env bash
# `linkscope predict --against` on bench/whatif.sh's jobs: the same errors as the benchmark's?
#
#   bench/whatif.sh BUILD_DIR OUT_DIR CASE... | tee LOG
#   bench/against.sh BUILD_DIR OUT_DIR LOG
#
# For every generated case in LOG and every row of it (identity and each what-if), runs
# `linkscope predict OUT_DIR/CASE/A/out WHATIF --against OUT_DIR/CASE/ROW/out` (the what-if's flags as
# whatif.sh gives them, B the regenerated run's export) and prints whatif.sh's faithful line beside
# --against's: the error of the mean step, the worst rank and its error. Exit status 1 when a row
# differs (docs/prediction.md, "Was the prediction right?").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:?BUILD_DIR}")
out=$(realpath "${2:?OUT_DIR}")
log=${3:?LOG}
linkscope=$build/app/linkscope
[ -x "$linkscope" ] || { echo "against.sh: no $linkscope" >&2; exit 2; }
kernels='^(?!Memcpy|Memset|nccl)'
# row label (as whatif.sh prints it) → subfolder and the what-if's flags
declare -A sub=(["identity"]=A ["compute kernels x0.5"]=k05 ["compute kernels x2"]=k2 ["GEMM kernels x0.5"]=g05
  ["CPU x0.5"]=c05 ["NCCL x0.25 (network)"]=n025 ["NCCL x4 (network)"]=n4 ["network bandwidth x4"]=bw4
  ["rank 1 delayed 2 ms/step"]=d1 ["rank 1 CPU x0.5"]=r1c05)
declare -A flags=(["identity"]="" ["compute kernels x0.5"]="--scale-gpu $kernels=0.5" ["compute kernels x2"]="--scale-gpu $kernels=2"
  ["GEMM kernels x0.5"]="--scale-gpu gemm=0.5" ["CPU x0.5"]="--scale-cpu .*=0.5" ["NCCL x0.25 (network)"]="--scale-comm 0.25"
  ["NCCL x4 (network)"]="--scale-comm 4" ["network bandwidth x4"]="--scale-network 4"
  ["rank 1 delayed 2 ms/step"]="--delay-rank 1=2" ["rank 1 CPU x0.5"]="--scale-cpu 1:.*=0.5")
case="" label="" rows=0 differ=0
while IFS= read -r line; do
  if [[ $line =~ ^==\ ([a-z0-9]+): ]]; then
    case=${BASH_REMATCH[1]}
    [ -d "$out/$case/A/out" ] || case="" # megatron and cases not generated: no A/out
    continue
  fi
  [ -n "$case" ] || continue
  for l in "${!sub[@]}"; do
    [[ $line == "$l "* ]] && label=$l
  done
  [[ $line == *"linkscope predict --model faithful"* && -n $label ]] || continue
  bench=$(sed -E 's/.*error +([-+][0-9.]+) %, worst rank ([0-9]+) ([-+][0-9.]+) %.*/\1 % worst rank \2 \3 %/' <<<"$line")
  read -r -a f <<<"${flags[$label]}"
  mine=$("$linkscope" predict "$out/$case/A/out" "${f[@]}" --against "$out/$case/${sub[$label]}/out" 2>&1 |
    sed -nE 's/.*error ([-+][0-9.]+) %; worst rank ([0-9]+) ([-+][0-9.]+) %.*/\1 % worst rank \2 \3 %/p')
  verdict=same
  [ "$bench" = "$mine" ] || { verdict=DIFFERS; differ=1; }
  printf '%-6s %-26s whatif.sh %-30s --against %-30s %s\n' "$case" "$label" "$bench" "$mine" "$verdict"
  rows=$((rows + 1))
  label=""
done <"$log"
echo "against.sh: $rows rows, $([ $differ = 0 ] && echo "every one the same" || echo "some differ")"
exit $differ
