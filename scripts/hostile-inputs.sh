#!/usr/bin/env bash
# The hostile and careless inputs of issue 16, each run through the CLI as a user would run it:
# prints a Markdown table (case, command, exit code, first line of the message, peak RSS) and
# checks what must hold (no signal, no lost input, a message naming the file). Each case is also a
# test in tests/test_robustness.cpp; this is the by-hand rerun with figures.
#
#   scripts/hostile-inputs.sh [LINKSCOPE] [WORKDIR]
#
# Exit status 1 if a case crashed (exit >= 128), replaced an input, or printed no file name.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ls_bin=$(realpath "${1:-$root/build/app/linkscope}")
gen=$(dirname "$ls_bin")/../tools/linkscope-gen
work=${2:-$(mktemp -d)}
mkdir -p "$work" && cd "$work" || exit 2
samples=$root/resources/samples
failed=0

# run NAME DISPLAY-COMMAND CMD...: one table row.
run() {
    local name=$1 shown=$2; shift 2
    /usr/bin/time -f '%M' -o rss.txt timeout 120 "$@" >out.txt 2>err.txt
    local rc=$?
    local rss; rss=$(tail -n 1 rss.txt 2>/dev/null)
    local msg; msg=$(grep -av '^\s*$' err.txt | grep -av 'Command exited\|Command terminated' | head -n 1 | cut -c1-160)
    [ -n "$msg" ] || msg=$(head -n 1 out.txt | cut -c1-160)
    printf '| %s | `%s` | %s | %s | %s MB |\n' "$name" "$shown" "$rc" "${msg//|/\\|}" "$(( ${rss:-0} / 1024 ))"
    if [ "$rc" -ge 124 ]; then
        echo "hostile-inputs: $name: exit $rc (signal or timeout)" >&2
        failed=1
    fi
}

# expect_same FILE COPY: the input must be untouched.
expect_same() {
    cmp -s "$1" "$2" || { echo "hostile-inputs: $1 was changed" >&2; failed=1; }
}

echo "| case | command | exit | message (first line) | peak RSS |"
echo "|---|---|---|---|---|"

# Deep nesting in Kineto metadata (deviceProperties[].name of 50,000 nested arrays).
{ printf '{"deviceProperties":[{"id":0,"name":'; printf '%.0s[' $(seq 50000); printf '%.0s]' $(seq 50000)
  printf '}],"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}'; } >deep.json
run "deep metadata nesting (50,000 levels)" "inspect deep.json" "$ls_bin" inspect deep.json

# A file truncated while it is parsed (a second process truncates it).
if [ -x "$gen" ]; then
    [ -f big.json ] || "$gen" --target-bytes 300M --seed 5 gen_host.json big.json \
        >/dev/null 2>&1 || true
fi
if [ -f big.json ]; then
    cp big.json shrink.json
    ( sleep 0.25; truncate -s 100000000 shrink.json ) &
    run "input truncated while parsed" "inspect shrink.json & truncate -s 100000000 shrink.json" \
        "$ls_bin" inspect shrink.json
    wait
fi

# Time overflow: a ts that fits in int64 ns, plus a dur that does not.
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":9223372036854775,"dur":9000000}]}' >ts.json
run "ts + dur beyond int64 ns" "link --device ts.json" "$ls_bin" link --device ts.json

# Gzip bomb: 1 GiB of zeros in about 1 MB.
head -c 1073741824 /dev/zero | gzip -9 >bomb.json.gz
run "gzip bomb (1 MB .gz of 1 GiB zeros)" "inspect bomb.json.gz" "$ls_bin" inspect bomb.json.gz
head -c 65536 /dev/zero | gzip -9 >zeros.et.gz
run "64 KB of zero bytes as .et (gzip)" "inspect zeros.et.gz" "$ls_bin" inspect zeros.et.gz
run "/dev/zero as .et" "dump /dev/zero" "$ls_bin" dump /dev/zero

# Special inputs.
mkdir -p adir
run "a directory as input" "inspect adir" "$ls_bin" inspect adir
rm -f fifo && mkfifo fifo
( sleep 1; timeout 5 bash -c ': >fifo' ) 2>/dev/null &
run "a FIFO as input" "inspect fifo" "$ls_bin" inspect fifo
wait 2>/dev/null
{ printf '\xef\xbb\xbf'; cat "$samples/sample_kineto.json"; } >bom.json
run "UTF-8 BOM before the JSON" "inspect bom.json" "$ls_bin" inspect bom.json

# Sidecars with numbers out of range.
sidecar_seed=$root/fuzz/seeds/every_edit.linkscope.json
if [ -f "$sidecar_seed" ]; then
    cp "$samples/sample_host_et.json" host.json
    cp "$samples/sample_kineto.json" device.json
    sed -E '0,/"size": *[0-9]+/s//"size": 1e400/' "$sidecar_seed" >big-number.linkscope.json
    run "sidecar \"size\": 1e400" "link --host host.json --device device.json --corrections big-number.linkscope.json" \
        "$ls_bin" link --host host.json --device device.json --corrections big-number.linkscope.json
    sed -E '0,/"ordinal": *[0-9]+/s//"ordinal": 4294967296/' "$sidecar_seed" >ordinal.linkscope.json
    run "sidecar \"ordinal\": 4294967296" "link --host host.json --device device.json --corrections ordinal.linkscope.json --force-corrections" \
        "$ls_bin" link --host host.json --device device.json --corrections ordinal.linkscope.json --force-corrections
fi

# Outputs onto inputs.
cp "$samples/sample_host_et.json" h.json
cp "$samples/sample_kineto.json" d.json
cp d.json d.before
run "--perfetto onto the Kineto input" "export --host h.json --device d.json --perfetto d.json" \
    "$ls_bin" export --host h.json --device d.json --perfetto d.json
expect_same d.json d.before
echo '{}' >d.json.linkscope.json && cp d.json.linkscope.json sidecar.before
run "--perfetto onto the sidecar" "export --host h.json --device d.json --perfetto d.json.linkscope.json" \
    "$ls_bin" export --host h.json --device d.json --perfetto d.json.linkscope.json
expect_same d.json.linkscope.json sidecar.before
rm -f d.json.linkscope.json
mkdir -p job-in && cp h.json job-in/host_0.json && cp d.json job-in/kineto_0.json
cp job-in/kineto_0.json job.before
run "job report onto a rank's Kineto trace" "job job-in --out job-out --report job-in/kineto_0.json" \
    "$ls_bin" job job-in --out job-out --report job-in/kineto_0.json
expect_same job-in/kineto_0.json job.before

# A non-UTF-8 file name (legal on Linux): outputs must stay valid UTF-8 JSON.
weird=$(printf 'rank\xff0')
cp "$samples/sample_kineto.json" "$weird.json"
cp "$samples/sample_host_et.json" "${weird}_et.json"
run "non-UTF-8 file name, export" "export --host rank\\xff0_et.json --device rank\\xff0.json --etplus e.json --perfetto p.json" \
    "$ls_bin" export --host "${weird}_et.json" --device "$weird.json" --etplus e.json --perfetto p.json
if command -v iconv >/dev/null; then
    for f in e.json p.json; do
        [ -f "$f" ] && ! iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 && { echo "hostile-inputs: $f is not UTF-8" >&2; failed=1; }
    done
fi
run "non-UTF-8 file name, inspect --json" "inspect --json rank\\xff0.json" "$ls_bin" inspect --json "$weird.json"

# Outputs to a pipe.
run "--perfetto to standard output" "export --host h.json --device d.json --perfetto - | wc -c" \
    bash -c "'$ls_bin' export --host h.json --device d.json --perfetto - | wc -c"

# kill -9 during a large export: no temporary file may be left behind.
if [ -f big.json ]; then
    mkdir -p killed
    "$ls_bin" export --device big.json --etplus killed/out.json --perfetto killed/out.pf.json >/dev/null 2>&1 &
    pid=$!
    sleep 2
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    left=$(find killed -name '.*tmp*' | wc -l)
    printf '| %s | `%s` | %s | %s | %s |\n' "kill -9 during export" "export ... & kill -9" "137" \
        "$left temporary file(s) left in the output folder" "-"
    [ "$left" -eq 0 ] || failed=1
fi
exit $failed
