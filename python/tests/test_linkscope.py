"""`import linkscope` against the CLI on the same input: every DataFrame's columns and values, a
what-if, a correction that round-trips through the sidecar, a bad file. ctest runs it with
PYTHONPATH at the built package and LINKSCOPE_CLI / LINKSCOPE_GEN / LINKSCOPE_SOURCE set
(python/CMakeLists.txt)."""

import json
import math
import os
import shutil
import signal
import subprocess
import threading
import time

import pandas as pd
import pytest

import linkscope

CLI = os.environ["LINKSCOPE_CLI"]
GEN = os.environ["LINKSCOPE_GEN"]
SAMPLES = os.path.join(os.environ["LINKSCOPE_SOURCE"], "resources", "samples")
HOST = os.path.join(SAMPLES, "sample_host_et.json")
DEVICE = os.path.join(SAMPLES, "sample_kineto.json")

LINK_COLUMNS = [
    "gpu_event", "pid", "device", "stream", "correlation", "name", "ts_ns", "dur_ns", "launch_event", "parent_event",
    "parent_name", "parent_ts_ns", "parent_ev_idx", "parent_ext_id", "parent_rf_id", "parent_host_id", "rule",
    "launch_match", "orphan", "confidence", "nesting_parent_event", "external_id_parent_event", "ev_idx_parent_event",
]
FINDING_COLUMNS = [
    "finding", "kind", "severity", "subject_kind", "event", "host_node_id", "name", "ts_ns", "message", "suggestion",
    "suggested_parent_event", "suggested_parent_name",
]
OPS_COLUMNS = ["name", "category", "count", "total_ns", "mean_ns", "max_ns", "percent_of_extent"]
CPU_OPS_COLUMNS = ["name", "category", "count", "total_ns", "self_ns", "mean_ns", "max_ns", "percent_of_extent"]
STREAM_COLUMNS = ["device", "stream", "ops", "busy_ns", "utilisation_percent", "comm_ns", "comm_overlapped_ns",
                  "exposed_comm_ns", "label"]
DEVICE_COLUMNS = ["device", "streams", "ops", "busy_ns", "utilisation_percent", "compute_ns", "comm_ns",
                  "comm_overlapped_ns", "exposed_comm_ns"]
STEP_COLUMNS = ["step", "start_ns", "dur_ns"]
RANK_PREDICTION_COLUMNS = ["rank", "finished", "step_ns", "baseline_step_ns", "change_pct", "critical_path_steps", "stuck"]
BREAKDOWN_COLUMNS = ["rank", "ns", "percent", "category"]
PATH_COLUMNS = ["rank", "step", "node_rank", "node_id", "start_ns", "end_ns", "dur_ns", "name", "kind", "category"]
TOP_COLUMNS = ["rank", "node_rank", "ns", "count", "percent", "name", "kind"]
JOB_RANK_COLUMNS = ["rank", "declared_rank", "world_size", "gpu_ops", "linked", "findings", "collectives", "host", "device",
                    "error", "note"]
JOB_FINDING_COLUMNS = ["index", "count", "kind", "severity", "process_group", "ranks", "message"]
COLLECTIVE_COLUMNS = ["rank", "call", "position", "elements", "bytes", "root", "peer", "launch_ns", "start_ns", "end_ns",
                      "process_group", "kind", "dtype"]


def cli(*args, check=True):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"linkscope {' '.join(args)}: {r.returncode}\n{r.stderr}")
    return r


def cli_json(*args):
    return json.loads(cli(*args).stdout)


def value(v):
    """A DataFrame cell as the CLI's JSON writes it (missing → None)."""
    if v is pd.NA or v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v.item() if hasattr(v, "item") else v


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The bundled sample copied (its sidecar is written by the corrections test)."""
    d = tmp_path_factory.mktemp("sample")
    host, device = d / "sample_host_et.json", d / "sample_kineto.json"
    shutil.copy(HOST, host)
    shutil.copy(DEVICE, device)
    return str(host), str(device)


@pytest.fixture(scope="module")
def pair(sample):
    return linkscope.open_pair(*sample)


@pytest.fixture(scope="module")
def job_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("job")
    subprocess.run([GEN, "--ranks", "2", "--out-dir", str(d)], check=True, capture_output=True)
    return str(d)


# --- a pair ---------------------------------------------------------------------------------------

def test_links_match_the_cli(pair, sample, tmp_path):
    links = pair.links()
    assert list(links.columns) == LINK_COLUMNS
    out = tmp_path / "links.jsonl"
    cli("link", "--host", sample[0], "--device", sample[1], "--links", str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(links) > 0
    for (_, row), want in zip(links.iterrows(), rows):
        for key in ["device", "stream", "correlation", "name", "ts_ns", "parent_name", "parent_ts_ns", "parent_ev_idx",
                    "parent_ext_id", "parent_rf_id", "parent_host_id", "rule", "launch_match", "orphan", "confidence"]:
            assert value(row[key]) == want[key], (key, row["gpu_event"])
        assert value(row["pid"]) == want["pid"]
    # The ids join: a parent event is a row of the same trace, named as parent_name says.
    linked = links[links["parent_event"].notna()]
    assert (linked["parent_event"] >= 0).all()
    assert links["gpu_event"].is_unique
    assert pair.info["gpu_ops"] == len(links)


def test_findings_match_the_cli(pair, sample, tmp_path):
    findings = pair.findings()
    assert list(findings.columns) == FINDING_COLUMNS
    out = tmp_path / "report.json"
    cli("link", "--host", sample[0], "--device", sample[1], "--report", str(out))
    want = json.loads(out.read_text())["findings"]
    assert len(findings) == len(want) > 0
    for (_, row), w in zip(findings.iterrows(), want):
        assert row["kind"] == w["kind"]
        assert row["severity"] == w["severity"]
        assert row["subject_kind"] == w["subject"]["kind"]
        assert row["message"] == w["message"]
        assert (value(row["suggestion"]) or "") == w["suggestion"]
        assert value(row["suggested_parent_name"]) == (w["suggested_parent"] or {}).get("name")
        if w["subject"]["kind"] == "device_event":
            assert value(row["ts_ns"]) == w["subject"]["ts_ns"]
            assert row["name"] == w["subject"]["name"]
        elif w["subject"]["kind"] == "host_node":
            assert value(row["host_node_id"]) == w["subject"]["id"]
    # A device-event finding's event joins the links of that GPU op.
    gpu = findings[findings["event"].isin(pair.links()["gpu_event"])]
    assert len(gpu) > 0


def test_summary_tables_match_the_cli(pair, sample):
    want = cli_json("summary", sample[0], sample[1], "--json", "--top", "0")
    gpu, cpu = pair.gpu_ops(), pair.cpu_ops()
    assert list(gpu.columns) == OPS_COLUMNS
    assert list(cpu.columns) == CPU_OPS_COLUMNS
    for frame, rows in [(gpu, want["gpu_ops"]), (cpu, want["cpu_ops"])]:
        assert len(frame) == len(rows) > 0
        for (_, row), w in zip(frame.iterrows(), rows):
            for key in ["name", "category", "count", "total_ns", "mean_ns", "max_ns"]:
                assert value(row[key]) == w[key], key
            assert row["percent_of_extent"] == pytest.approx(w["percent_of_extent"])
    assert list(cpu["self_ns"]) == [w["self_ns"] for w in want["cpu_ops"]]
    streams, devices, steps = pair.streams(), pair.devices(), pair.steps()
    assert list(streams.columns) == STREAM_COLUMNS
    assert list(devices.columns) == DEVICE_COLUMNS
    assert list(steps.columns) == STEP_COLUMNS
    for frame, rows in [(streams, want["streams"]), (devices, want["devices"]), (steps, want["steps"]["steps"])]:
        assert len(frame) == len(rows)
        for (_, row), w in zip(frame.iterrows(), rows):
            for key, expected in w.items():
                if isinstance(expected, float):
                    assert row[key] == pytest.approx(expected), key
                else:
                    assert value(row[key]) == expected, key
    top = pair.top_kernels(3)
    assert len(top) <= 3 and (top["category"] == "kernel").all()
    assert pair.exposed_comm()["exposed_comm_ns"].sum() == want["exposed_comm_ns"]
    assert set(pair.summary()) == {"gpu_ops", "cpu_ops", "streams", "devices", "exposed_comm", "steps"}


def test_predict_and_a_what_if_match_the_cli(pair, sample):
    p = pair.predict()
    assert list(p.ranks.columns) == RANK_PREDICTION_COLUMNS
    assert list(p.breakdown.columns) == BREAKDOWN_COLUMNS
    assert list(p.critical_path.columns) == PATH_COLUMNS
    assert list(p.top.columns) == TOP_COLUMNS
    want = cli_json("predict", "--host", sample[0], "--device", sample[1], "--json")
    assert list(p.ranks["step_ns"]) == [r["step_ns"] for r in want["ranks"]]
    assert len(p.critical_path) == want["ranks"][0]["critical_path_steps"]
    b = p.breakdown[p.breakdown["rank"] == p.ranks["rank"][0]].set_index("category")["ns"]
    for key, ns in want["ranks"][0]["breakdown"].items():
        assert b[key.removesuffix("_ns")] == ns

    faster = pair.predict(scale_comm=0.5, scale_gpu={"gemm|sgemm": 0.5})
    want = cli_json("predict", "--host", sample[0], "--device", sample[1], "--json", "--scale-comm", "0.5",
                    "--scale-gpu", "gemm|sgemm=0.5")
    assert faster.whatif == want["whatif"]
    assert list(faster.ranks["step_ns"]) == [r["step_ns"] for r in want["ranks"]]
    assert list(faster.ranks["baseline_step_ns"]) == list(p.ranks["step_ns"])
    # Raw CLI tokens work as well, and a flag that is not a what-if is refused.
    again = pair.predict(["--scale-comm", "0.5", "--scale-gpu", "gemm|sgemm=0.5"])
    assert list(again.ranks["step_ns"]) == list(faster.ranks["step_ns"])
    with pytest.raises(ValueError):
        pair.predict(["--no-such-what-if", "1"])


def test_export_writes_what_the_cli_writes(pair, sample, tmp_path):
    written = pair.export(et=tmp_path / "py.et", perfetto=tmp_path / "py.perfetto.json", target="astra-sim")
    assert written["et"] == os.path.getsize(tmp_path / "py.et") > 0
    cli("export", "--host", sample[0], "--device", sample[1], "--target", "astra-sim", "--et", str(tmp_path / "cli.et"),
        "--perfetto", str(tmp_path / "cli.perfetto.json"))
    assert (tmp_path / "py.et").read_bytes() == (tmp_path / "cli.et").read_bytes()
    assert (tmp_path / "py.perfetto.json").read_bytes() == (tmp_path / "cli.perfetto.json").read_bytes()
    assert set(linkscope.export_targets()["name"]) >= {"et", "etplus", "perfetto"}
    with pytest.raises(linkscope.WriteError):
        pair.export(perfetto=sample[1])  # would replace an input
    with pytest.raises(ValueError):
        pair.export(no_such_target=tmp_path / "x")


def test_a_correction_round_trips_through_the_sidecar(sample, tmp_path):
    # Under Chakra 1.0's rule the NCCL kernels sit on record_param_comms: the findings suggest their nccl:* op.
    pair = linkscope.open_pair(*sample, policy="external-id")
    findings = pair.findings()
    suggested = findings[findings["suggested_parent_event"].notna()]
    assert len(suggested) > 0
    gpu, parent = int(suggested["event"].iloc[0]), int(suggested["suggested_parent_event"].iloc[0])
    outcome = pair.reparent(gpu, parent)
    assert list(outcome["status"]) == ["applied"]
    flagged = int(pair.links()["gpu_event"].iloc[-1])
    assert list(pair.flag(flagged, "looks wrong")["status"]) == ["applied"]
    sidecar = pair.sidecar
    assert sidecar == sample[1] + ".linkscope.json"  # the device trace's own, as the GUI's
    saved = json.load(open(sidecar))
    assert saved["format"] == "linkscope-corrections"
    assert len(saved["entries"]) == 2

    reopened = linkscope.open_pair(*sample)  # the sidecar's policy
    assert reopened.info["sidecar_state"] == "loaded"
    assert reopened.policy == "external-id"
    log = reopened.corrections()
    assert list(log["kind"]) == ["reparent", "flag"]
    assert log["note"].iloc[1] == "looks wrong"
    row = reopened.links().set_index("gpu_event").loc[gpu]
    assert row["parent_event"] == parent
    assert row["rule"] == "manual"
    # The CLI reads the same sidecar to the same links.
    out = tmp_path / "links.jsonl"
    cli("link", "--host", sample[0], "--device", sample[1], "--corrections", sidecar, "--links", str(out))
    want = [json.loads(line) for line in out.read_text().splitlines()]
    assert [value(v) for v in reopened.links()["parent_name"]] == [w["parent_name"] for w in want]
    # Undo drops it from the sidecar too.
    assert reopened.undo()
    assert list(linkscope.open_pair(*sample).corrections()["kind"]) == ["reparent"]
    with pytest.raises(IndexError):
        reopened.reparent(10**9, parent)


def test_a_bad_file_raises_load_error_with_the_cli_message(tmp_path):
    bad = tmp_path / "bad_kineto.json"
    text = open(DEVICE).read()
    bad.write_text(text[: len(text) // 2] + "}{ not json")
    with pytest.raises(linkscope.LoadError) as caught:
        linkscope.open_pair(HOST, str(bad))
    e = caught.value
    assert e.file == str(bad)
    assert e.offset > 0
    assert isinstance(e, linkscope.Error) and isinstance(e, RuntimeError)
    r = cli("link", "--host", HOST, "--device", str(bad), check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == f"link: {e}"
    with pytest.raises(linkscope.LoadError) as missing:
        linkscope.open(str(tmp_path / "absent.json"))
    assert missing.value.file.endswith("absent.json")


# --- a generated job ------------------------------------------------------------------------------

def test_job_tables_match_the_cli(job_dir, tmp_path):
    job = linkscope.open(job_dir)
    assert isinstance(job, linkscope.Job)
    ranks = job.ranks()
    assert list(ranks.columns) == JOB_RANK_COLUMNS
    assert list(ranks["rank"]) == [0, 1]
    out = tmp_path / "out"
    cli("job", job_dir, "--out", str(out))
    report = json.load(open(out / "job-report.json"))
    mine = job.report()
    assert mine["world_size"] == report["world_size"]
    assert [f["kind"] for f in mine["findings"]] == [f["kind"] for f in report["findings"]]
    findings = job.findings()
    assert list(findings.columns) == JOB_FINDING_COLUMNS
    assert list(findings["kind"]) == [f["kind"] for f in report["findings"]]
    for r, want in zip(ranks.itertuples(), report["ranks"]):
        assert r.rank == want["rank"]
        assert r.gpu_ops == want["gpu_ops"]
        assert r.linked == want["linked"]

    calls = job.collectives()
    assert list(calls.columns) == COLLECTIVE_COLUMNS
    assert len(calls) > 0
    summaries = [json.load(open(out / f"trace.{r}.summary.json")) for r in (0, 1)]
    assert [len(s["calls"]) for s in summaries] == [int((calls["rank"] == r).sum()) for r in (0, 1)]
    # (process_group, position) joins the ranks: each position of a group is issued by both.
    grouped = calls[calls["position"] >= 0].groupby(["process_group", "position"])["rank"].nunique()
    assert (grouped >= 1).all()

    # Job.export writes what `linkscope job --out` writes.
    written = job.export(tmp_path / "py")
    assert [os.path.basename(p) for p in written["et"]] == ["trace.0.et", "trace.1.et"]
    for name in ["trace.0.et", "trace.1.et", "comm_group.json"]:
        assert (tmp_path / "py" / name).read_bytes() == (out / name).read_bytes(), name
    assert json.load(open(written["report"]))["findings"] == report["findings"]
    want = cli_json("summary", job_dir, "--json", "--top", "0")
    gpu = job.gpu_ops()
    assert list(gpu.columns) == ["rank"] + OPS_COLUMNS
    for r in want["ranks"]:
        mine = gpu[gpu["rank"] == r["rank"]]
        assert list(mine["total_ns"]) == [o["total_ns"] for o in r["gpu_ops"]]
        assert list(job.steps().query(f"rank == {r['rank']}")["dur_ns"]) == [s["dur_ns"] for s in r["steps"]["steps"]]
    assert list(job.streams().columns) == ["rank"] + STREAM_COLUMNS


def test_job_predict_matches_the_cli(job_dir):
    job = linkscope.open_job(job_dir, jobs=1)
    p = job.predict(delay_rank={1: 2})
    want = cli_json("predict", job_dir, "--json", "--delay-rank", "1=2")
    assert list(p.ranks["rank"]) == [r["rank"] for r in want["ranks"]]
    assert list(p.ranks["step_ns"]) == [r["step_ns"] for r in want["ranks"]]
    assert (p.ranks["step_ns"] > p.ranks["baseline_step_ns"]).any()
    q = linkscope.predict(job_dir, delay_rank={1: 2})
    assert list(q.ranks["step_ns"]) == list(p.ranks["step_ns"])
    pair = job.pair(1)
    assert pair.info["gpu_ops"] == int(job.ranks().query("rank == 1")["gpu_ops"].iloc[0])


def test_opportunities_match_the_cli(job_dir):
    frame = linkscope.opportunities(job_dir)
    want = cli_json("predict", job_dir, "--opportunities", "--json")
    assert list(frame["title"]) == [o["title"] for o in want["opportunities"]]
    assert list(frame["gain_ns"]) == [o["gain_ns"] for o in want["opportunities"]]
    assert list(frame["args"]) == [" ".join(o["args"]) for o in want["opportunities"]]
    assert list(frame["position"]) == list(range(1, len(frame) + 1))
    assert frame["gain_ns"].is_monotonic_decreasing and frame["gain_ns"].iloc[0] > 0
    assert frame.attrs["baseline_makespan_ns"] == want["baseline_makespan_ns"]
    assert frame.attrs["not_offered"][0][0] == want["not_offered"][0]["candidate"]
    astra = linkscope.opportunities(job_dir, model="astra-sim")
    assert astra.attrs["model"] == "astra-sim" and astra["gain_ns"].is_monotonic_decreasing
    with pytest.raises(ValueError):
        linkscope.opportunities(job_dir, model="no-such-model")


def test_ctrl_c_stops_a_long_open(tmp_path):
    host, device = tmp_path / "host.json", tmp_path / "kineto.json"
    subprocess.run([GEN, "--target-events", "300000", str(host), str(device)], check=True, capture_output=True)
    threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        linkscope.open_pair(host, device)
        time.sleep(5)  # opened before the signal came (a very fast machine): it lands here
    assert time.monotonic() - start < 5


def test_a_sidecar_of_other_inputs_is_not_applied_nor_written(tmp_path):
    host, device = tmp_path / "host.json", tmp_path / "kineto.json"
    shutil.copy(HOST, host)
    shutil.copy(DEVICE, device)
    pair = linkscope.open_pair(host, device)
    pair.flag(int(pair.links()["gpu_event"].iloc[0]), "first")
    saved = open(pair.sidecar).read()
    with open(device, "a") as f:  # the trace changes after the sidecar was written
        f.write("\n")
    changed = linkscope.open_pair(host, device)
    assert changed.info["sidecar_state"] == "mismatch"
    assert changed.info["sidecar_problems"]
    assert len(changed.corrections()) == 0
    with pytest.raises(linkscope.CorrectionError):
        changed.flag(int(changed.links()["gpu_event"].iloc[0]), "second")
    assert open(changed.sidecar).read() == saved
    forced = linkscope.open_pair(host, device, force_corrections=True)
    assert forced.info["sidecar_state"] == "forced"
    assert list(forced.corrections()["note"]) == ["first"]
