# A notebook's cells as a script: Linkscope from Python on the bundled sample pair and a generated
# 2-rank job. Run from a checkout after a build (the output below is this script's, pasted):
#
#   PYTHONPATH=build/python /usr/bin/python3 docs/python-example.py
#
# With the Debian package installed, `import linkscope` needs no PYTHONPATH and the sample is in
# /usr/share/linkscope/samples.
import os
import shutil
import subprocess
import tempfile

import pandas as pd

import linkscope

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 8)
pd.set_option("display.max_colwidth", 40)
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = tempfile.mkdtemp()
for name in ["sample_host_et.json", "sample_kineto.json"]:  # a copy: the corrections below write its sidecar
    shutil.copy(os.path.join(root, "resources", "samples", name), work)
host, device = os.path.join(work, "sample_host_et.json"), os.path.join(work, "sample_kineto.json")

# %% Open a pair: read, linked (policy nesting) and corrected by its sidecar, as `linkscope link` does.
pair = linkscope.open(host, device)
print(pair)

# %% The links: one row per GPU op. How was each parent chosen?
links = pair.links()
print(links[["gpu_event", "name", "parent_name", "rule", "confidence"]].head(6))
print(links.groupby("rule", observed=True).size())

# %% The findings, and the NCCL kernels whose parent Chakra's rule would get wrong.
findings = pair.findings()
print(findings.groupby(["severity", "kind"], observed=True).size())

# %% Where the GPU time goes: the top kernels, exposed communication, the steps.
print(pair.top_kernels(3)[["name", "count", "total_ns", "percent_of_extent"]])
print(pair.exposed_comm())
print(pair.steps())

# %% Under Chakra 1.0's rule (policy external-id) the NCCL kernels sit on record_param_comms: the
# findings say so and suggest their nccl:* op. Apply the suggestions as the GUI's Fix does; the
# sidecar (the GUI's) is written at once, and the pair reopens with it.
chakra = linkscope.open(host, device, policy="external-id")
findings = chakra.findings()
print(findings.groupby(["severity", "kind"], observed=True).size())
nccl = findings[findings["kind"] == "nccl_parent_is_record_param_comms"]
print(nccl[["event", "name", "suggested_parent_event", "suggested_parent_name"]])
print(chakra.apply_suggestions("nccl_parent_is_record_param_comms"))
print(chakra.flag(nccl["event"].iloc[0], "checked by hand"))
print(chakra.corrections()[["kind", "description"]])
reopened = linkscope.open(host, device)
print(os.path.basename(reopened.sidecar), reopened.info["sidecar_state"], reopened.policy)
print(reopened.links().query("gpu_event in @nccl.event")[["gpu_event", "parent_name", "rule"]])

# %% Predict the step, and what if communication were twice as fast.
base = pair.predict()
faster = pair.predict(scale_comm=0.5)
print(base.ranks[["rank", "step_ns"]])
print(faster.whatif, f"{faster.ranks.change_pct[0]:+.1f} %")
print(base.breakdown[["category", "ns", "percent"]])

# %% Export the corrected pair for ASTRA-sim.
print(pair.export(et=os.path.join(work, "sample.et"), target="astra-sim"))

# %% A job: every rank, its collectives, the cross-rank findings, and a straggler what-if.
job_dir = os.path.join(work, "job")
subprocess.run([os.path.join(root, "build", "tools", "linkscope-gen"), "--ranks", "2", "--out-dir", job_dir],
               check=True, capture_output=True)
job = linkscope.open(job_dir)
print(job.ranks()[["rank", "gpu_ops", "linked", "collectives"]])
calls = job.collectives()
print(calls[["rank", "call", "process_group", "position", "kind", "dtype", "bytes"]].head(4))
print(len(job.findings()), "cross-rank findings")
late = job.predict(delay_rank={1: 2})
print(late.ranks[["rank", "baseline_step_ns", "step_ns", "change_pct"]])

# %% A file that cannot be read raises LoadError naming the file and the byte.
with open(os.path.join(work, "broken.json"), "w") as f:
    f.write('{"traceEvents": [{"name": "x", "ph": ')
try:
    linkscope.open(os.path.join(work, "broken.json"))
except linkscope.LoadError as e:
    print(type(e).__name__, os.path.basename(e.file), e.offset)

shutil.rmtree(work)

# Output (PYTHONPATH=build/python /usr/bin/python3 docs/python-example.py):
# <linkscope.Pair '/tmp/…/sample_kineto.json' + '/tmp/…/sample_host_et.json': 37 GPU ops, 37 linked, 4 findings, policy nesting>
#    gpu_event                                     name                            parent_name     rule  confidence
# 0        160           Memcpy HtoD (Pinned -> Device)                            aten::copy_  nesting        1.00
# 1        162           Memcpy HtoD (Pinned -> Device)                            aten::copy_  nesting        1.00
# 2        164  sm90_xmma_gemm_f32f32_tf32f32_f32_tn...                            aten::addmm  nesting        1.00
# 3        166  sm90_xmma_gemm_f32f32_tf32f32_f32_tn...                            aten::addmm  nesting        1.00
# 4        168     triton_red_fused_native_layer_norm_0  ## Call CompiledFxGraph fq3ygbtjxk ##  nesting        0.95
# 5        170  void at::native::vectorized_elementw...                        aten::clamp_min  nesting        1.00
# rule
# nesting    37
# dtype: int64
# severity  kind               
# info      policy_disagreement    4
# dtype: int64
#                                       name  count  total_ns  percent_of_extent
# 0  ncclDevKernel_AllReduce_Sum_f32_RING...      2   4085747         106.273489
# 1  ncclDevKernel_AllGather_RING_LL(nccl...      1   1400588          36.430394
# 2  sm90_xmma_gemm_f32f32_tf32f32_f32_tn...      4    808496          21.029616
#    device  stream            label  comm_ns  comm_overlapped_ns  exposed_comm_ns
# 0       0      40  GPU 0 stream 40  3378675              740385          2638290
# 1       1      40  GPU 1 stream 40  2107660              143140          1964520
#    step          start_ns   dur_ns
# 0     3  4459061781927866  3836596
# severity  kind                             
# info      policy_disagreement                  4
# warning   nccl_parent_is_record_param_comms    3
# dtype: int64
#    event                                     name  suggested_parent_event  suggested_parent_name
# 1    184  ncclDevKernel_AllGather_RING_LL(nccl...                      28  nccl:_all_gather_base
# 4    212  ncclDevKernel_AllReduce_Sum_f32_RING...                      73        nccl:all_reduce
# 6    232  ncclDevKernel_AllReduce_Sum_f32_RING...                      71        nccl:all_reduce
#    entry  edit   status reason
# 0      0     0  applied       
# 1      0     1  applied       
# 2      0     2  applied       
#    entry  edit   status reason
# 0      1     0  applied       
#        kind                              description
# 0  reparent  Re-parent ncclDevKernel_AllGather_RI...
# 1  reparent  Re-parent ncclDevKernel_AllReduce_Su...
# 2  reparent  Re-parent ncclDevKernel_AllReduce_Su...
# 3      flag  Flag ncclDevKernel_AllGather_RING_LL...
# sample_kineto.json.linkscope.json loaded external-id
#     gpu_event            parent_name    rule
# 12        184  nccl:_all_gather_base  manual
# 26        212        nccl:all_reduce  manual
# 36        232        nccl:all_reduce  manual
#    rank  step_ns
# 0     0  3790360
# transfers ×0.5 -39.1 %
#      category       ns    percent
# 0         cpu    59002   1.556633
# 1         gpu   312001   8.231434
# 2        comm  3419357  90.211932
# 3  other_rank        0   0.000000
# 4        idle        0   0.000000
# {'et': 52446}
#    rank  gpu_ops  linked  collectives
# 0     0       51      51            4
# 1     1       51      51            4
#    rank  call process_group  position        kind    dtype    bytes
# 0     0     0             0         0  all_gather  float32  1480704
# 1     0     1             0        -1        send  float32   982528
# 2     0     2             0         1  all_reduce  float32   249856
# 3     0     3             0         2  all_reduce  float32  4112384
# 0 cross-rank findings
#    rank  baseline_step_ns  step_ns  change_pct
# 0     0           3826666  5826666   52.264817
# 1     1           3826666  5826666   52.264817
# LoadError broken.json 37
