# A notebook's cells as a script: Linkscope from Python on the bundled sample pair and a generated
# 2-rank job. Run from a checkout after a build (the output below is this script's, pasted):
#
#   PYTHONPATH=build/python python3 docs/python-example.py
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

# %% Correct a link the way the GUI does: take a finding's suggested parent; the sidecar is written at once.
suggested = findings[findings["suggested_parent_event"].notna()].iloc[0]
print(suggested[["kind", "name", "suggested_parent_name"]].to_dict())
print(pair.reparent(suggested["event"], suggested["suggested_parent_event"]))
print(pair.flag(suggested["event"], "checked by hand"))
print(pair.corrections()[["kind", "description"]])
print(os.path.basename(pair.sidecar), "reopened:", linkscope.open(host, device).info["sidecar_state"])

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
print(calls.pivot_table(index=["process_group", "position"], columns="rank", values="start_ns").head(3))
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
