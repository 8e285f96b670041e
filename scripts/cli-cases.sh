#!/usr/bin/env bash
# Runs the CLI's inspect / link / export / dump / check / diff cases on the bundled traces and writes every
# output (files and standard output) into OUTDIR, one file per case, so that two runs can be
# compared byte for byte: the same build natively and under an emulated older CPU, or a native and
# a cross-compiled build (scripts/dev baseline, scripts/dev arm64).
#
#   scripts/cli-cases.sh OUTDIR LINKSCOPE [RUNNER...]
#
# RUNNER is prepended to every command (e.g. qemu-x86_64 -cpu Nehalem). Exit status: 0 when every
# case ran with the exit status it is expected to have; the statuses are written to OUTDIR/status.
# Wall-time figures in the outputs are masked, so `diff -r` of two OUTDIRs is the comparison.
set -uo pipefail

out=$1; shift
linkscope=$1; shift
runner=("$@")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
samples=$root/resources/samples
traces=$root/tests/data/traces
exportdata=$root/tests/data/export

rm -rf "$out" && mkdir -p "$out"
linkscope=$(realpath "$linkscope")
out=$(realpath "$out")
# Outputs are named relative to OUTDIR, so that reports naming them do not depend on where it is.
cd "$out" || exit 2
: >status
failed=0

# case NAME EXPECTED_STATUS ARGS...: standard output to NAME.out, standard error to NAME.err.
case_() {
    local name=$1 expected=$2; shift 2
    "${runner[@]}" "$linkscope" "$@" >"$name.out" 2>"$name.err"
    local rc=$?
    echo "$name $rc" >>status
    if [ "$rc" != "$expected" ]; then
        echo "cli-cases: $name exited $rc, expected $expected (see $out/$name.err)" >&2
        failed=1
    fi
}

pairs=(
    "sample $samples/sample_host_et.json $samples/sample_kineto.json"
    "seed $exportdata/seed_host_et.json $exportdata/seed_kineto.json"
    "megatron $traces/astrasim_megatron_tp8_8rank_pair/megatron_et_0.json.gz $traces/astrasim_megatron_tp8_8rank_pair/megatron_kineto_0.json.gz"
    "simpleadd $traces/hta_simple_add_1gpu_pair/benchmark_simple_add_et.json.gz $traces/hta_simple_add_1gpu_pair/benchmark_simple_add_trace.json.gz"
)
for entry in "${pairs[@]}"; do
    read -r name host device <<<"$entry"
    [ -f "$host" ] && [ -f "$device" ] || continue
    case_ "$name.inspect" 0 inspect "$host" "$device"
    case_ "$name.inspect-json" 0 inspect --json "$host" "$device"
    for policy in nesting external-id; do
        case_ "$name.link-$policy" 0 link --host "$host" --device "$device" --policy "$policy" \
            --report "$name.$policy.findings.json" --links "$name.$policy.links.jsonl"
        case_ "$name.export-$policy" 0 export --host "$host" --device "$device" --policy "$policy" \
            --et "$name.$policy.et" --etplus "$name.$policy.etplus.json" \
            --perfetto "$name.$policy.perfetto.json" --report
    done
    case_ "$name.export-astra" 0 export --host "$host" --device "$device" --target astra-sim \
        --et "$name.astra.et" --report
    case_ "$name.dump" 0 dump "$name.nesting.et"
done

# Traces read alone: Kineto only, ET+ only, host ET only.
for single in "$traces/hta_kineto_nccl/nccl_data.json.gz" \
              "$traces/hta_kineto_nccl/mi250_minitoy_train_ROCm6_2_kineto.json.gz" \
              "$traces/astrasim_dlrm_etplus_8rank/dlrm_eg_0_plus.json.gz" \
              "$traces/param_host_et_only/pt2_et_1.1.1.json.gz"; do
    [ -f "$single" ] || continue
    case_ "$(basename "$single" .json.gz).inspect" 0 inspect --json "$single"
done

# A Kineto trace exported alone (no host ET): the targets that do not need one.
if [ -f "$samples/sample_kineto.json" ]; then
    case_ "kineto-alone.export" 0 export --device "$samples/sample_kineto.json" \
        --perfetto kineto-alone.perfetto.json --report
fi

# Two runs side by side (docs/diff.md): every figure, the JSON and the CSV.
if [ -f "$samples/sample_kineto.json" ] && [ -f "$exportdata/seed_kineto.json" ]; then
    case_ "diff" 0 diff "$samples/sample_kineto.json" "$exportdata/seed_kineto.json" --top 0 --csv diff.csv
    case_ "diff-json" 0 diff --a "$samples/sample_host_et.json" "$samples/sample_kineto.json" \
        --b "$exportdata/seed_kineto.json" --json
fi

# ASTRA-sim's own example .et files and a job's checks.
examples=$traces/astrasim_chakra_et_examples/custom_ring_allreduce_8npus_1MB
if [ -d "$examples" ]; then
    first=$(find "$examples" -name '*.et' | sort | head -n 1)
    [ -n "$first" ] && case_ "example.dump" 0 dump "$first"
fi
if [ -f "$samples/sample_host_et.json" ]; then
    mkdir -p job-in
    cp "$samples/sample_host_et.json" job-in/host_et_0.json
    cp "$samples/sample_kineto.json" job-in/kineto_0.json
    case_ "job" 0 job job-in --out job --jobs 1
    case_ "check" 0 check job/trace.0.et --comm-groups job/comm_group.json
    rm -rf job-in
fi

# Wall times differ from run to run, and so do the output folder, the inputs' modification times a
# rank summary records (its "run") and the id and start of the `job` run that wrote a file
# (job/runid.h): they are masked, everything else must be identical.
here=$(pwd)
find . -type f \( -name '*.out' -o -name '*.err' -o -name '*.json' \) -print0 |
    xargs -0 -r sed -i -E -e 's/("[a-z_]*seconds"): [0-9.eE+-]+/\1: T/g; s/ in [0-9.eE+-]+ s\b/ in T s/g' \
        -e 's/"mtime_ns":[0-9]+/"mtime_ns":T/g' -e "s#${here}/#OUT/#g" \
        -e 's/("id": ?)"[0-9a-f]{32}"/\1"RUN"/g' -e 's/("started": ?)"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"/\1"T"/g' \
        -e 's/\b[0-9a-f]{32}\b/RUN/g'
exit $failed
