#!/usr/bin/python3
"""HTA's critical-path rules on one rank's Kineto trace, against `linkscope predict --device`'s path.

    bench/hta-path.py KINETO_TRACE [LINKSCOPE_BINARY]

HTA (hta/analyzers/critical_path_analysis.py @ f4d0062) is not in Debian and this machine has no PyPI,
so its rules are written out here as ../shared/reference/prediction-anchors.md describes them:
  * each CPU op, runtime call and GPU op is a start node and an end node; nested CPU events chain
    parent start -> child start -> child end -> parent end, the edges weighing the time between;
    consecutive top-level CPU events are joined by a 0-weight edge (CPU gaps count for nothing);
  * a blocking sync call (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
    cudaEventQuery, cudaMemcpy, cudaMemcpyAsync) weighs 0 inside, and a 0-weight edge runs from the
    awaited kernel's end to the call's end (a device sync, and here every sync: the last GPU op of
    every stream that started before the call ended);
  * a GPU op: its launch's start -> its start when its stream was idle at the launch (weight: the
    launch delay), else the previous op of its stream's end -> its start; start -> end its duration.
The longest path from the first node to the last is HTA's critical path. Printed: each path's length,
its share per kind (CPU, GPU, launch delay), and op by op, the GPU ops on both paths in order (a
longest common subsequence by name) as a share of each path's GPU time. Linkscope's path is the
replay's (docs/prediction.md, "Critical path": where the rules differ).
"""
import gzip
import json
import subprocess
import sys
from collections import defaultdict

BLOCKING = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaEventQuery",
            "cudaMemcpy", "cudaMemcpyAsync", "hipDeviceSynchronize", "hipStreamSynchronize", "hipMemcpy",
            "hipMemcpyAsync", "hipEventSynchronize"}
CPU_CATS = {"cpu_op", "user_annotation", "cuda_runtime", "cuda_driver"}
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return [e for e in doc.get("traceEvents", []) if e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))]


def hta_path(events):
    cpu = [e for e in events if e.get("cat") in CPU_CATS and e.get("dur", 0) >= 0]
    gpu = [e for e in events if e.get("cat") in GPU_CATS and e.get("dur", 0) >= 0]
    nodes = []  # (time, event index, "s"/"e")
    index = {}

    def node(ev, side):
        key = (id(ev), side)
        if key not in index:
            index[key] = len(nodes)
            nodes.append((ev["ts"] + (ev["dur"] if side == "e" else 0), ev, side))
        return index[key]

    edges = defaultdict(list)  # from -> [(to, weight, owner event, kind)]

    def edge(a, b, w, owner, kind):
        edges[a].append((b, max(0.0, w), owner, kind))

    # CPU: nesting per thread.
    threads = defaultdict(list)
    for e in cpu:
        threads[(e.get("pid"), e.get("tid"))].append(e)
    for evs in threads.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []  # [event, last node, last time]
        last_top = None

        def close(top):
            ev, last, t = top
            end = node(ev, "e")
            w = 0 if ev.get("name") in BLOCKING else ev["ts"] + ev["dur"] - t
            edge(last, end, w, ev, "cpu")
            return end, ev["ts"] + ev["dur"]

        for e in evs:
            while stack and stack[-1][0]["ts"] + stack[-1][0]["dur"] <= e["ts"]:
                end, t = close(stack.pop())
                if stack:
                    stack[-1][1], stack[-1][2] = end, t
                else:
                    last_top = end
            start = node(e, "s")
            if stack:
                edge(stack[-1][1], start, e["ts"] - stack[-1][2], stack[-1][0], "cpu")
            elif last_top is not None:
                edge(last_top, start, 0, None, "gap")
            stack.append([e, start, e["ts"]])
        while stack:
            end, t = close(stack.pop())
            if stack:
                stack[-1][1], stack[-1][2] = end, t
            else:
                last_top = end

    # GPU: launches, stream order, durations.
    launch_of = {}
    for e in cpu:
        corr = e.get("args", {}).get("correlation")
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and corr is not None:
            launch_of[corr] = e
    streams = defaultdict(list)
    for g in gpu:
        streams[(g.get("pid"), g.get("args", {}).get("stream", g.get("tid")))].append(g)
    for evs in streams.values():
        evs.sort(key=lambda e: e["ts"])
        prev = None
        for g in evs:
            s, e_ = node(g, "s"), node(g, "e")
            edge(s, e_, g["dur"], g, "gpu")
            launch = launch_of.get(g.get("args", {}).get("correlation"))
            if launch is not None and (prev is None or prev["ts"] + prev["dur"] < launch["ts"]):
                edge(node(launch, "s"), s, g["ts"] - launch["ts"], g, "launch")
            elif prev is not None:
                edge(node(prev, "e"), s, g["ts"] - prev["ts"] - prev["dur"], None, "gap")
            prev = g
    # Syncs: the last GPU op of every stream that started before the call ended.
    starts = sorted(gpu, key=lambda g: g["ts"])
    for e in cpu:
        if e.get("name") in BLOCKING:
            end_t = e["ts"] + e["dur"]
            last = {}
            for g in starts:
                if g["ts"] > end_t:
                    break
                last[(g.get("pid"), g.get("args", {}).get("stream"))] = g
            for g in last.values():
                if g["ts"] + g["dur"] <= end_t + 1:
                    edge(node(g, "e"), node(e, "e"), 0, None, "sync")

    # Longest path over the DAG (Kahn's order; edges never go back in time).
    n = len(nodes)
    indeg = [0] * n
    for a, outs in edges.items():
        for b, *_ in outs:
            indeg[b] += 1
    order = [i for i in range(n) if indeg[i] == 0]
    best = [0.0] * n
    via = [None] * n
    k = 0
    while k < len(order):
        a = order[k]
        k += 1
        for b, w, owner, kind in edges.get(a, ()):
            if best[a] + w > best[b] or via[b] is None and best[a] + w >= best[b]:
                best[b], via[b] = best[a] + w, (a, w, owner, kind)
            indeg[b] -= 1
            if indeg[b] == 0:
                order.append(b)
    end = max(range(n), key=lambda i: best[i])
    share = defaultdict(float)
    gpu_ops = []
    i = end
    while via[i] is not None:
        a, w, owner, kind = via[i]
        share[kind] += w
        if kind == "gpu" and owner is not None:
            gpu_ops.append((owner["name"], w))
        i = a
    gpu_ops.reverse()
    return best[end], share, gpu_ops


def linkscope_path(trace, binary):
    out = subprocess.run([binary, "predict", "--device", trace, "--json", "--model", "faithful"],
                         capture_output=True, text=True, check=True).stdout
    p = json.loads(out)
    r = p["ranks"][0]
    steps = r["critical_path"]
    gpu_ops = [(s["name"], (s["end_ns"] - s["start_ns"]) / 1e3) for s in steps
               if s["kind"] in ("gpu", "collective") and s["rank"] == r["rank"]]
    b = r["breakdown"]
    return r["step_ns"] / 1e3, b, gpu_ops


def lcs_weight(a, b):
    """Σ weight of a's items in a longest common subsequence of names, and b's."""
    m, n = len(a), len(b)
    if m * n > 25_000_000:
        return float("nan"), float("nan")
    prev = [0] * (n + 1)
    rows = []
    for i in range(m):
        cur = [0] * (n + 1)
        for j in range(n):
            cur[j + 1] = prev[j] + 1 if a[i][0] == b[j][0] else max(prev[j + 1], cur[j])
        rows.append(prev)
        prev = cur
    rows.append(prev)
    i, j, wa, wb = m, n, 0.0, 0.0
    while i and j:
        if a[i - 1][0] == b[j - 1][0]:
            wa, wb, i, j = wa + a[i - 1][1], wb + b[j - 1][1], i - 1, j - 1
        elif rows[i - 1][j] >= rows[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return wa, wb


def main():
    trace = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else "build/app/linkscope"
    length, share, hta_gpu = hta_path(load(trace))
    step, breakdown, ls_gpu = linkscope_path(trace, binary)
    wa, wb = lcs_weight(hta_gpu, ls_gpu)
    hta_gpu_us, ls_gpu_us = sum(w for _, w in hta_gpu), sum(w for _, w in ls_gpu)
    print(f"{trace}")
    print(f"  HTA rules : path {length / 1e3:10.3f} ms; cpu {share['cpu'] / 1e3:.3f} ms, gpu {share['gpu'] / 1e3:.3f} ms, "
          f"launch delay {share['launch'] / 1e3:.3f} ms; {len(hta_gpu)} GPU ops on it")
    print(f"  linkscope : step {step / 1e3:10.3f} ms; cpu {breakdown['cpu_ns'] / 1e6:.3f} ms, gpu "
          f"{breakdown['gpu_ns'] / 1e6:.3f} ms, comm {breakdown['comm_ns'] / 1e6:.3f} ms, idle {breakdown['idle_ns'] / 1e6:.3f} ms; "
          f"{len(ls_gpu)} GPU ops on it")
    if hta_gpu_us and ls_gpu_us:
        print(f"  GPU ops on both paths in order: {100 * wa / hta_gpu_us:.1f} % of HTA's path GPU time, "
              f"{100 * wb / ls_gpu_us:.1f} % of linkscope's")


if __name__ == "__main__":
    main()
