# Cross-check for test_export: a python3 (stdlib only) port of what chakra_converter PyTorch does with
# an ET+ file's dependencies (chakra's src/converter/pytorch_converter.py: the keys and attrs it requires, the per-thread-root
# DFS chain, GPU nodes after their launcher, inter_thread_dep, dangling-node removal).
# usage: chakra_converter_deps.py ETPLUS.json OUT.json  → {"<id>": [sorted data_deps], ...}
# Written from the reference, independently of the C++ exporter it checks.
import json, sys
d = json.load(open(sys.argv[1]))
assert all(k in d for k in ('schema', 'pid', 'time', 'start_ts', 'finish_ts'))
nodes = {}
REQ_ATTRS = {'rf_id', 'fw_parent', 'seq_id', 'scope', 'tid', 'fw_tid', 'op_schema'}
for n in d['nodes']:
    for k in ('id', 'name', 'ctrl_deps', 'inputs', 'outputs'):
        assert k in n, (k, n['id'])
    assert {'values', 'shapes', 'types'} <= set(n['inputs']), n['id']
    names = {a['name'] for a in n.get('attrs', [])}
    assert REQ_ATTRS <= names, (n['id'], REQ_ATTRS - names)
    nodes[n['id']] = n
children = {i: [] for i in nodes}
for i, n in nodes.items():
    if n['ctrl_deps'] in nodes:
        children[n['ctrl_deps']].append(i)
isgpu = lambda n: n.get('cat') is not None
data = {i: [] for i in nodes}
roots = [i for i, n in nodes.items() if n['name'] in ('[pytorch|profiler|execution_graph|thread]', '[pytorch|profiler|execution_trace|thread]')]
for r in roots:
    visited = set(); stack = [r]; last_cpu = None; last_any = None
    while stack:
        c = stack.pop()
        if c in visited: continue
        visited.add(c); n = nodes[c]
        if isgpu(n):
            if last_any is not None and last_any not in data[c]: data[c].append(last_any)
            last_any = last_cpu
        else:
            if n.get('inter_thread_dep') and n['inter_thread_dep'] not in data[c]: data[c].append(n['inter_thread_dep'])
            if last_cpu is not None and last_cpu not in data[c]: data[c].append(last_cpu)
            last_cpu = last_any = c
        for ch in sorted(children[c], reverse=True):
            if ch not in visited: stack.append(ch)
parents = set(x for v in data.values() for x in v)
kept = {i for i in nodes if i in parents or data[i]}
out = {i: sorted(data[i]) for i in sorted(kept)}
json.dump({str(k): v for k, v in out.items()}, open(sys.argv[2], 'w'))
print('nodes', len(nodes), 'kept', len(kept), 'edges', sum(len(v) for v in out.values()))
