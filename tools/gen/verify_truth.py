#!/usr/bin/env python3
"""Independent cross-check of linkscope-gen output (stdlib only, not a product dependency).

usage: verify_truth.py HOST_ET KINETO TRUTH

Re-derives every GPU op's parent from the Kineto file alone with the rule of
docs/linking.md (runtime event by correlation; innermost cpu_op/user_annotation on
the launch thread whose [ts, end] contains the launch start, ProfilerStep#N excluded, ties: larger ts,
then smaller dur), and checks it against the truth file; also checks that every parent has an ET
node with the same name whose ctrl_deps chain mirrors the Kineto nesting.
"""
import bisect
import json
import sys
from decimal import Decimal


def ns(text):
    return int(Decimal(str(text)) * 1000)


def main(host_path, kineto_path, truth_path):
    # parse_float=Decimal keeps the nanosecond digits a double would lose at ~4.5e12 µs.
    kineto = json.load(open(kineto_path), parse_float=Decimal)
    host = json.load(open(host_path))
    events = kineto["traceEvents"]
    cpu = {}        # (pid, tid) -> list of (ts, -dur, ev_idx, event)
    runtime = {}    # correlation -> event
    by_ev_idx = {}
    for e in events:
        cat = e.get("cat")
        if cat in ("cpu_op", "user_annotation") and e.get("ph") == "X":
            cpu.setdefault((e["pid"], e["tid"]), []).append(e)
            by_ev_idx[e["args"]["Ev Idx"]] = e
        elif cat in ("cuda_runtime", "cuda_driver"):
            c = e["args"]["correlation"]
            assert c not in runtime, f"duplicate correlation {c}"
            runtime[c] = e
    starts = {}
    for key, lst in cpu.items():
        lst.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        starts[key] = [ns(e["ts"]) for e in lst]

    nodes = {n["id"]: n for n in host["nodes"]}
    rf = {}
    for n in host["nodes"]:
        a = {x["name"]: x["value"] for x in n["attrs"]}
        if a["rf_id"]:
            assert a["rf_id"] not in rf, "duplicate rf_id"
            rf[a["rf_id"]] = n

    truth = [json.loads(line) for line in open(truth_path)]
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    assert len(gpu) == len(truth), (len(gpu), len(truth))
    checked = 0
    ancestors = 0
    for g, t in zip(gpu, truth):
        assert g["name"] == t["name"] and g["pid"] == t["pid"] and ns(g["ts"]) == t["ts_ns"]
        assert g["args"]["correlation"] == t["correlation"]
        launch = runtime[g["args"]["correlation"]]
        lts = ns(launch["ts"])
        key = (launch["pid"], launch["tid"])
        lst = cpu[key]
        enclosing = []
        for e in lst[: bisect.bisect_right(starts[key], lts)]:
            if e["name"].startswith("ProfilerStep#"):
                continue
            if ns(e["ts"]) <= lts <= ns(e["ts"]) + ns(e["dur"]):
                enclosing.append(((ns(e["ts"]), -ns(e["dur"])), e))
        assert enclosing, f"no enclosing op for {t}"
        enclosing.sort(key=lambda x: x[0], reverse=True)
        innermost = enclosing[0][1]
        # docs/linking.md, The linkage rule, step 4: the nearest enclosing op that has an ET node.
        parent = next(e for _, e in enclosing if e["args"]["Record function id"] in rf)
        assert parent["args"]["Ev Idx"] == t["parent"]["ev_idx"], (parent["name"], t)
        if parent is not innermost:
            assert t["innermost"]["ev_idx"] == innermost["args"]["Ev Idx"]
            ancestors += 1
        # No other candidate within 1 µs of containment would change the answer.
        for e in lst[: bisect.bisect_right(starts[key], lts + 1000)]:
            if e is innermost or e["name"].startswith("ProfilerStep#"):
                continue
            end = ns(e["ts"]) + ns(e["dur"])
            if ns(e["ts"]) > ns(innermost["ts"]) and end >= lts - 1000:
                raise AssertionError(f"ambiguous within 1 µs: {e['name']} vs {innermost['name']}")
        node = rf[parent["args"]["Record function id"]]
        assert node["id"] == t["parent"]["et_id"] and node["name"] == parent["name"]
        # ET ancestry mirrors the Kineto nesting: the ET parent of the node is the enclosing Kineto op.
        outer_ops = [e for e in lst if ns(e["ts"]) <= ns(parent["ts"]) and ns(e["ts"]) + ns(e["dur"]) >= ns(parent["ts"]) + ns(parent["dur"]) and e is not parent]
        outer_ops = [e for e in outer_ops if e["args"]["Record function id"] in rf]
        if outer_ops and node["ctrl_deps"] in nodes and not nodes[node["ctrl_deps"]]["name"].startswith("[pytorch"):
            outer = max(outer_ops, key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
            assert nodes[node["ctrl_deps"]]["name"] == outer["name"], (node["name"], outer["name"])
        checked += 1
    kinds = {}
    for t in truth:
        kinds[t["parent"]["cat"]] = kinds.get(t["parent"]["cat"], 0) + 1
    ext_wrong = sum(1 for t in truth if t["external_id_op"] is None or t["external_id_op"]["ev_idx"] != t["parent"]["ev_idx"])
    latest_wrong = sum(1 for t in truth if t["latest_starting"] is None or t["latest_starting"]["ev_idx"] != t["parent"]["ev_idx"])
    print(f"ok: {checked} GPU ops match the linkage rule; parents by cat {kinds}; "
          f"{ancestors} attached to an ancestor (innermost has no ET node); "
          f"External-id rule wrong on {ext_wrong}, latest-starting rule wrong on {latest_wrong}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
