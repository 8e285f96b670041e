"""Linkscope from Python: link PyTorch host execution traces and Kineto traces, read the links,
findings, summaries, job reports and predictions as pandas DataFrames, correct links into the same
sidecar the GUI writes, and export Chakra ``.et`` for ASTRA-sim.

    import linkscope
    pair = linkscope.open("rank0_host_et.json", "rank0_kineto.json")
    links = pair.links()                       # one row per GPU op
    pair.findings().groupby("kind").size()
    job = linkscope.open("job_folder/")        # a job: ranks, collectives, cross-rank findings
    job.predict(scale_comm=0.5).ranks          # the step per rank, what-if: communication 2x faster

Every table is a pandas DataFrame; times are integer nanoseconds on the trace's own time base
(columns ending in ``_ns``), and ``*_event`` columns are positions in the Kineto trace's events, the
same in every table of a pair (``links().gpu_event``, ``findings().event``, ``reparent(...)``).
The API reference is docs/python.md.
"""

from __future__ import annotations

import os
from typing import Any, Iterable

import pandas as pd

from . import _linkscope
from ._linkscope import CorrectionError, Error, ExportError, LoadError, WriteError

__version__ = _linkscope.__version__
__all__ = [
    "open", "open_pair", "open_job", "predict", "opportunities", "export_targets", "Pair", "Job", "Prediction",
    "Error", "LoadError", "ExportError", "WriteError", "CorrectionError", "__version__",
]


def _frame(columns: dict) -> pd.DataFrame:
    """A DataFrame from the extension's columns: numpy arrays, ("int?", values, missing) for
    nullable integers, ("cat", codes, categories) for strings."""
    data = {}
    for name, column in columns.items():
        if isinstance(column, tuple):
            if column[0] == "cat":
                data[name] = pd.Categorical.from_codes(column[1], categories=pd.Index(column[2], dtype=object))
            else:
                data[name] = pd.arrays.IntegerArray(column[1], column[2])
        else:
            data[name] = column
    return pd.DataFrame(data, copy=False)


def _text(value: Any) -> str:
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _what_if_args(what_if: Iterable[str] | None, flags: dict) -> list[str]:
    """The CLI's what-if flags: keyword arguments (scale_comm=2 → --scale-comm 2; a list repeats the
    flag; a dict gives KEY=VALUE: scale_gpu={"gemm": 0.5} → --scale-gpu gemm=0.5) after the raw
    tokens of ``what_if`` (["--scale-comm", "2"])."""
    args = [_text(a) for a in (what_if or [])]
    for key, value in flags.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, dict):
            values = [f"{k}={v}" for k, v in value.items()]
        elif isinstance(value, (list, tuple)):
            values = list(value)
        else:
            values = [value]
        for v in values:
            args += [flag, _text(v)]
    return args


def export_targets() -> pd.DataFrame:
    """The export targets (core's table, as `linkscope export` lists them): name, title, help,
    default_suffix, needs_host."""
    return pd.DataFrame(_linkscope.export_targets())


class Prediction:
    """A prediction (docs/prediction.md): the graph replayed as exported and under the what-ifs.

    Attributes: ``whatif`` (str), ``network`` (dict: bandwidth_gbps, latency_ns, npus),
    ``network_source``, ``mirrored``, ``makespan_ns``, ``baseline_makespan_ns``, ``replay_ms``, and
    the DataFrames ``ranks`` (alias ``steps``), ``breakdown``, ``critical_path`` and ``top``.
    """

    def __init__(self, result: dict):
        self.whatif = result["whatif"]
        self.network = dict(result["network"])
        self.network_source = result["network_source"]
        self.mirrored = result["mirrored"]
        self.notes = list(result["notes"])
        self.makespan_ns = result["makespan_ns"]
        self.baseline_makespan_ns = result["baseline_makespan_ns"]
        self.replay_ms = result["replay_ms"]
        self.ranks = _frame(result["ranks"])
        self.breakdown = _frame(result["breakdown"])
        self.critical_path = _frame(result["critical_path"])
        self.top = _frame(result["top"])

    @property
    def steps(self) -> pd.DataFrame:
        return self.ranks

    def __repr__(self) -> str:
        return (f"<linkscope.Prediction {len(self.ranks)} rank(s), what-if {self.whatif!r}, "
                f"makespan {self.makespan_ns / 1e6:.3f} ms (as exported {self.baseline_makespan_ns / 1e6:.3f} ms)>")


class Pair:
    """A host ET + Kineto pair (or a Kineto trace alone), read, linked and corrected by its sidecar
    as ``linkscope link`` does. Reading and linking run without the GIL.

    ``device``: the Kineto trace; ``host``: the host ET (None: the Kineto trace alone);
    ``policy``: nesting (default), external-id or ev-idx — None takes the sidecar's;
    ``sidecar``: the corrections sidecar (default the device trace's own, as the GUI's), applied
    when it exists and was made from these inputs (``force_corrections`` applies it anyway), and
    written by every correction; ``allow_truncated``, ``inter_thread_deps``, ``tolerance_ns``: as
    the CLI's options. Raises LoadError naming the file and position of what cannot be read.
    """

    def __init__(self, device, host=None, *, policy: str | None = None, sidecar=None, force_corrections: bool = False,
                 allow_truncated: bool = False, inter_thread_deps: bool = False, tolerance_ns: int = 1000,
                 _resolve_order: bool = False):
        self._pair = _linkscope.Pair(host=_text(host) if host is not None else "", device=_text(device),
                                     policy=policy or "", sidecar=_text(sidecar) if sidecar is not None else "",
                                     resolve_order=_resolve_order, force_corrections=force_corrections,
                                     allow_truncated=allow_truncated, inter_thread_deps=inter_thread_deps,
                                     tolerance_ns=tolerance_ns)

    # --- what was opened --------------------------------------------------------------------
    @property
    def info(self) -> dict:
        """host, device, policy, events, host_nodes, gpu_ops, linked, findings, sidecar,
        sidecar_state (none, loaded, mismatch, invalid, forced), sidecar_problems, warnings."""
        return self._pair.info()

    @property
    def host(self) -> str | None:
        return self.info["host"]

    @property
    def device(self) -> str:
        return self.info["device"]

    @property
    def policy(self) -> str:
        return self.info["policy"]

    @property
    def sidecar(self) -> str:
        return self.info["sidecar"]

    def __repr__(self) -> str:
        i = self.info
        return (f"<linkscope.Pair {i['device']!r}{' + ' + repr(i['host']) if i['host'] else ''}: {i['gpu_ops']} GPU ops, "
                f"{i['linked']} linked, {i['findings']} findings, policy {i['policy']}>")

    # --- tables -----------------------------------------------------------------------------
    def links(self) -> pd.DataFrame:
        """One row per GPU op (docs/links-format.md's keys, plus the event ids that join tables)."""
        return _frame(self._pair.links())

    def findings(self) -> pd.DataFrame:
        """One row per finding, in report order (`linkscope link --report`)."""
        return _frame(self._pair.findings())

    def gpu_ops(self, top: int = 0) -> pd.DataFrame:
        """GPU ops by (name, category), longest total first (`linkscope summary`); top=0: all."""
        return _frame(self._pair.gpu_ops(top))

    def top_kernels(self, n: int = 10) -> pd.DataFrame:
        """The n kernels with the longest total time."""
        ops = self.gpu_ops(0)
        return ops[ops["category"] == "kernel"].head(n).reset_index(drop=True)

    def cpu_ops(self, top: int = 0) -> pd.DataFrame:
        """CPU ops (cat cpu_op) by name, longest total first, with self time; top=0: all."""
        return _frame(self._pair.cpu_ops(top))

    def streams(self) -> pd.DataFrame:
        """Every GPU stream: busy time, utilisation, communication and its exposed part."""
        return _frame(self._pair.streams())

    def devices(self) -> pd.DataFrame:
        """Every GPU: busy, compute, communication, overlapped and exposed communication."""
        return _frame(self._pair.devices())

    def exposed_comm(self) -> pd.DataFrame:
        """Communication per stream with the part not overlapped by computation, most exposed first."""
        s = self.streams()
        s = s[s["comm_ns"] > 0][["device", "stream", "label", "comm_ns", "comm_overlapped_ns", "exposed_comm_ns"]]
        return s.sort_values("exposed_comm_ns", ascending=False, kind="stable").reset_index(drop=True)

    def steps(self) -> pd.DataFrame:
        """The ProfilerStep#N spans: step, start_ns, dur_ns."""
        return _frame(self._pair.steps())

    def summary(self, top: int = 10) -> dict:
        """Every summary table: gpu_ops, cpu_ops (top N), streams, devices, exposed_comm, steps."""
        return {"gpu_ops": self.gpu_ops(top), "cpu_ops": self.cpu_ops(top), "streams": self.streams(),
                "devices": self.devices(), "exposed_comm": self.exposed_comm(), "steps": self.steps()}

    # --- corrections (saved to the sidecar at once, as the GUI saves them) --------------------
    def _outcomes(self, outcomes: list) -> pd.DataFrame:
        return pd.DataFrame(outcomes, columns=["entry", "edit", "status", "reason"])

    def reparent(self, gpu_event: int, parent_event: int, label: str | None = None) -> pd.DataFrame:
        """Re-parents a GPU op (links().gpu_event) onto a CPU op (an event id: parent_event,
        suggested_parent_event). Returns each edit's outcome (applied, unchanged, stale, rejected)."""
        return self._outcomes(self._pair.reparent(int(gpu_event), int(parent_event), label or ""))

    def detach(self, gpu_event: int, label: str | None = None) -> pd.DataFrame:
        return self._outcomes(self._pair.detach(int(gpu_event), label or ""))

    def restore(self, gpu_event: int, label: str | None = None) -> pd.DataFrame:
        """Gives a GPU op back the linker's parent."""
        return self._outcomes(self._pair.restore(int(gpu_event), label or ""))

    def flag(self, event: int, note: str = "", label: str | None = None) -> pd.DataFrame:
        """Flags an event's link as wrong, with a note (the GUI's Review ▸ Flag link as wrong…)."""
        return self._outcomes(self._pair.flag(int(event), note, label or ""))

    def note(self, event: int, text: str, label: str | None = None) -> pd.DataFrame:
        return self._outcomes(self._pair.note(int(event), text, label or ""))

    def apply_suggestions(self, kind: str, label: str | None = None) -> pd.DataFrame:
        """Re-parents every finding of ``kind`` that has a suggested parent, as one entry."""
        return self._outcomes(self._pair.apply_suggestions(kind, label or ""))

    def undo(self) -> bool:
        """Drops the last correction (and saves the sidecar); False when there is none."""
        return self._pair.undo()

    def corrections(self) -> pd.DataFrame:
        """The correction log: entry, edit, label, kind, description, note."""
        return _frame(self._pair.corrections())

    # --- export and prediction ------------------------------------------------------------------
    def export(self, *, target: str | None = None, gzip: bool = False, **outputs) -> dict:
        """Writes the corrected pair: a path per export target (export_targets(): et=, etplus=,
        perfetto=). ``target``: the .et's flavour, chakra (default) or astra-sim. Returns target →
        bytes written. Raises ExportError, WriteError (an output that would replace an input)."""
        return self._pair.export({k: (_text(v) if v is not None else None) for k, v in outputs.items()},
                                 target or "", gzip)

    def predict(self, what_if: Iterable[str] | None = None, *, top: int = 10, **flags) -> Prediction:
        """`linkscope predict --host H --device D` with the CLI's what-if flags as keywords
        (scale_gpu={"gemm": 0.5}, scale_comm=2, delay_rank={1: 3}, …) or raw tokens in what_if."""
        return Prediction(self._pair.predict(_what_if_args(what_if, flags), top))


class Job:
    """A job folder (one pair per rank, or Kineto traces alone), every rank read, linked and
    corrected by its own sidecar as ``linkscope job`` does (nothing written), and the cross-rank
    report built. ``jobs``: ranks read at the same time (default: the cores)."""

    def __init__(self, folder, *, policy: str | None = None, jobs: int | None = None):
        self.folder = _text(folder)
        self._job = _linkscope.Job(paths=[self.folder], policy=policy or "", jobs=jobs or (os.cpu_count() or 1))

    def __repr__(self) -> str:
        return f"<linkscope.Job {self.folder!r}: {len(self._job.rank_files())} rank(s)>"

    @property
    def errors(self) -> list:
        """The folder's layout problems (conflicting or unusable files)."""
        return self._job.errors()

    def ranks(self) -> pd.DataFrame:
        """One row per rank: files, declared rank and world size, GPU ops, linked, findings, collectives, error."""
        return _frame(self._job.ranks())

    def findings(self) -> pd.DataFrame:
        """The job's findings (docs/job-report.md): kind, severity, process_group, index, ranks, message."""
        return _frame(self._job.findings())

    def collectives(self) -> pd.DataFrame:
        """Every collective call of every rank: rank, call (its position on the rank), process_group,
        position (in the group's sequence, -1 none), kind, dtype, elements, bytes, root, peer,
        launch_ns, start_ns, end_ns (each rank's own clock). (process_group, position) joins ranks."""
        return _frame(self._job.collectives())

    def report(self) -> dict:
        """job-report.json as `linkscope job` writes it (docs/job-report.md)."""
        return self._job.report()

    def _stats(self, which: str, top: int = 0) -> pd.DataFrame:
        frames = [_frame(t) for t in self._job.stats(which, top)]
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def gpu_ops(self, top: int = 0) -> pd.DataFrame:
        return self._stats("gpu_ops", top)

    def cpu_ops(self, top: int = 0) -> pd.DataFrame:
        return self._stats("cpu_ops", top)

    def streams(self) -> pd.DataFrame:
        return self._stats("streams")

    def devices(self) -> pd.DataFrame:
        return self._stats("devices")

    def exposed_comm(self) -> pd.DataFrame:
        s = self.streams()
        s = s[s["comm_ns"] > 0][["rank", "device", "stream", "label", "comm_ns", "comm_overlapped_ns", "exposed_comm_ns"]]
        return s.reset_index(drop=True)

    def steps(self) -> pd.DataFrame:
        return self._stats("steps")

    def summary(self, top: int = 10) -> dict:
        return {"ranks": self.ranks(), "gpu_ops": self.gpu_ops(top), "cpu_ops": self.cpu_ops(top), "streams": self.streams(),
                "devices": self.devices(), "exposed_comm": self.exposed_comm(), "steps": self.steps()}

    def export(self, out_dir, *, prefix: str = "trace", target: str | None = None) -> dict:
        """`linkscope job DIR --out OUT_DIR`: every rank's .et (ASTRA-sim's flavour unless
        target="chakra") and summary, comm_group.json, network.yml when fitted and job-report.json.
        Returns {"et": [paths], "comm_group", "network", "report"}. Raises WriteError before
        writing anything when an output would replace an input."""
        return self._job.export(out_dir=_text(out_dir), prefix=prefix, target=target or "")

    def pair(self, rank: int, **options) -> Pair:
        """Opens one rank's pair with its tables and corrections (its own sidecar)."""
        for r, host, device in self._job.rank_files():
            if r == rank:
                return Pair(device, host or None, **options)
        raise KeyError(f"no rank {rank} in {self.folder}")

    def predict(self, what_if: Iterable[str] | None = None, *, top: int = 10, **flags) -> Prediction:
        """`linkscope predict JOB_DIR` with the CLI's what-if flags (see Pair.predict)."""
        return Prediction(self._job.predict(_what_if_args(what_if, flags), top))


def open_pair(host, device, **options) -> Pair:
    """A pair: host ET and Kineto trace (host None: the Kineto trace alone). Options as Pair's."""
    return Pair(device, host, **options)


def open_job(folder, **options) -> Job:
    return Job(folder, **options)


def open(first, second=None, **options):
    """``linkscope.open(JOB_DIR)`` → Job; ``open(HOST_ET, KINETO)`` (either order, told apart by
    content, as the CLI's ``linkscope A B``) or ``open(KINETO)`` → Pair."""
    if second is None and os.path.isdir(_text(first)):
        return Job(first, **options)
    return Pair(second if second is not None else first, first if second is not None else None,
                _resolve_order=second is not None, **options)


def predict(*paths, host=None, device=None, comm_groups=None, network=None, prefix: str = "trace", npus: int = 0,
            policy: str | None = None, jobs: int = 1, top: int = 10, what_if: Iterable[str] | None = None,
            **flags) -> Prediction:
    """`linkscope predict`: a job folder (traces or an export), .et files, or host=/device= (a pair),
    with the CLI's what-if flags as keywords (scale_comm=2, scale_gpu={"gemm": 0.5}, …)."""
    return Prediction(_linkscope.predict(
        paths=[_text(p) for p in paths], host=_text(host) if host else "", device=_text(device) if device else "",
        comm_groups=_text(comm_groups) if comm_groups else "", network=_text(network) if network else "", prefix=prefix,
        npus=npus, policy=policy or "", jobs=jobs, what_if=_what_if_args(what_if, flags), top=top))


def opportunities(*paths, host=None, device=None, comm_groups=None, network=None, prefix: str = "trace", npus: int = 0,
                  policy: str | None = None, jobs: int = 1, model: str = "faithful") -> pd.DataFrame:
    """`linkscope predict --opportunities` (docs/prediction.md, "Opportunities"): candidate changes
    (kernel families and streams on the critical path, communication, stragglers' CPU, …) each
    replayed, ranked by the job's gain — one row per candidate, best first. The inputs are
    ``predict``'s; ``model``: faithful or astra-sim. ``attrs`` holds ``baseline_makespan_ns``,
    ``critical_rank``, ``stragglers``, ``sweep_ms``, ``model`` and ``not_offered`` (candidate, why)."""
    result = _linkscope.opportunities(
        paths=[_text(p) for p in paths], host=_text(host) if host else "", device=_text(device) if device else "",
        comm_groups=_text(comm_groups) if comm_groups else "", network=_text(network) if network else "", prefix=prefix,
        npus=npus, policy=policy or "", jobs=jobs, model=model)
    frame = _frame(result["opportunities"])
    for key in ("model", "baseline_makespan_ns", "critical_rank", "sweep_ms", "network_source"):
        frame.attrs[key] = result[key]
    frame.attrs["stragglers"] = list(result["stragglers"])
    frame.attrs["not_offered"] = [tuple(n) for n in result["not_offered"]]
    return frame
