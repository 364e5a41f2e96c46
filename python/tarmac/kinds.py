# SPDX-License-Identifier: Apache-2.0
"""kinds.py — one class per kind of tarmac result (docs/python.md).

A new kind is one class here: its `kind`, its `command`, a `matches(f,
attrs)` that recognises its files (most carry a root attribute `kind`), the
properties of its layout, and a line in KINDS. open() takes the first class
of KINDS that matches, so the more specific ones come first.
"""
import json
import os

import h5py
import pandas as pd

from . import _h5
from ._base import Result, Provenance, TarmacError


def _lines(v):
    return _h5.text(v).split("\n") if v is not None else []


class Run(Result):
    """A run file of `tarmac run` (docs/output.md): jobs, time series,
    summary, per-class, per-pool, per-tenant tables, the GPU-hour ledger and
    the cost."""
    kind = "run"
    command = "tarmac run"

    @classmethod
    def matches(cls, f, attrs):
        # a file written with --jobs summary or none has no /jobs (its root
        # attribute jobs_table says which)
        return "kind" not in attrs and "summary" in f and ("jobs" in f or "jobs_table" in attrs)

    def describe(self):
        p, s = self.provenance, self.summary
        return (f"scenario {p.scenario_name!r}, seed {p.seed}, policy {p.policy!r}, "
                f"{s['jobs_arrived']} jobs, {s['t_end_s'] / 3600:.1f} h")

    @property
    def summary(self):
        """The run's figures, /summary: {name: value} (docs/output.md)."""
        return self.scalars("summary")

    def _per(self, group, index_name):
        with self.h5() as f:
            return _h5.groups_frame(f[group], index_name) if group in f else pd.DataFrame()

    @property
    def classes(self):
        """One row per workload class (/summary/classes/<class>): `index`,
        `kind` and the class's figures."""
        return self._per("summary/classes", "class")

    @property
    def pools(self):
        return self._per("summary/pools", "pool")

    @property
    def gpu_types(self):
        return self._per("summary/types", "gpu_type")

    @property
    def services(self):
        """One row per service (/summary/services), empty without services."""
        return self._per("summary/services", "service")

    @property
    def shape_blocked(self):
        return self.scalars("summary/shape_blocked")

    @property
    def tenants(self):
        return self.table("tenants")

    @property
    def jobs_table(self):
        """What the file keeps of the jobs: "full" (/jobs), "summary"
        (/jobs_summary) or "none" (`tarmac run --jobs`)."""
        with self.h5() as f:
            return _h5.text(f.attrs["jobs_table"]) if "jobs_table" in f.attrs else "full"

    @property
    def jobs(self):
        """/jobs sorted by id (the file holds them in finishing order). A file
        written with --jobs summary or none has none: TarmacError."""
        kept = self.jobs_table
        if kept != "full":
            raise TarmacError(self.path, f"no /jobs: written with --jobs {kept} "
                              "(run again with --jobs full for one row per job"
                              + (", or read jobs_summary" if kept == "summary" else "") + ")")
        return self.table("jobs").sort_values("id", kind="stable").reset_index(drop=True)

    @property
    def jobs_summary(self):
        """/jobs_summary, one row per job shape (class, GPUs, milli-GPU), of a
        file written with --jobs summary; TarmacError otherwise."""
        return self.table("jobs_summary")

    @property
    def timeseries(self):
        return self.table("timeseries")

    def timeseries_by(self, what):
        """{name: DataFrame} of /timeseries_<what>/<name>, what one of pool,
        type, class, service."""
        with self.h5() as f:
            g = f.get(f"timeseries_{what}")
            return {k: _h5.table(g[k]) for k in _h5.subgroups(g)} if g is not None else {}

    @property
    def ledger(self):
        """/ledger/fleet: one row per bucket; gpu_hours add up to
        summary['gpu_hours_owned']."""
        return self.table("ledger/fleet")

    @property
    def ledger_pools(self):
        return self.table("ledger/pools")

    @property
    def ledger_consumers(self):
        return self.table("ledger/consumers")

    @property
    def cost(self):
        """The run's cost figures, /cost ({name: value}); the tables are
        table("cost/pools"), "cost/breakdown", "cost/chargeback", "cost/tenants"."""
        return self.scalars("cost")


# a scenario's horizon is at most 100 years (config/config_int.h)
SCENARIO_HORIZON_MAX_S = 36525 * 86400


def _from_trace(f):
    """A replay runs its trace to the end: its scenario's horizon is set
    beyond any a scenario file may give (INT64_MAX / 4 microseconds,
    cli/cmd_replay.c and config/replay_scenario.c), the one mark that tells
    its run file from a run's."""
    try:
        sc = json.loads(f["provenance/scenario_resolved"].asstr()[()])
        return sc["horizon_s"] > SCENARIO_HORIZON_MAX_S
    except (KeyError, TypeError, ValueError):
        return False


class Replay(Run):
    """A run file of `tarmac replay` (protocol time): the layout of a run,
    the jobs from a trace. The file does not name the trace."""
    kind = "replay"
    command = "tarmac replay"

    @classmethod
    def matches(cls, f, attrs):
        return Run.matches(f, attrs) and _from_trace(f)


class _Point:
    """A sweep's point file: the point's own report plus /sweep_point."""
    command = "tarmac sweep run"

    @property
    def point(self):
        """/sweep_point: point, combo, replication, seed, fingerprint,
        sweep_file, and params {JSON path: value as JSON}."""
        with self.h5() as f:
            g = f["sweep_point"]
            out = _h5.scalars(g)
            if "params" in g:
                out["params"] = {k: json.loads(_h5.text(d.attrs["json"])) if "json" in d.attrs else _h5.value(d)
                                 for k, d in g["params"].items()}
            return out

    def describe(self):
        p = self.point
        return f"point {p['point']} of {os.path.basename(p['sweep_file'])} ({super().describe()})"


class RunPoint(_Point, Run):
    """A point of a sweep of kind scenario: a run file plus /sweep_point."""
    kind = "sweep-point"

    @classmethod
    def matches(cls, f, attrs):
        return "sweep_point" in f and Run.matches(f, attrs)


class Pack(Result):
    """A packing file (`tarmac replay --protocol pack`, docs/output.md
    "Packing experiment"): per policy, the curves over the grid of arrived
    demand, mean/sd/min/max over seeds, and each seed's curve."""
    kind = "pack"
    command = "tarmac replay --protocol pack"
    METRICS = ("alloc_pct", "frag_pct", "frag_capacity_pct", "failed_pods", "failed_gpu_pct")

    @classmethod
    def matches(cls, f, attrs):
        return _h5.text(attrs.get("kind", "")) == "openb-packing"

    def describe(self):
        c = self.config
        return (f"{len(self.policies)} policies x {c['n_seeds']} seeds on {c['capacity_gpus']:g} GPUs, "
                f"{os.path.basename(c['pods_file'])} to {c['target_pct']:g} %")

    @property
    def config(self):
        return self.scalars("packing/config")

    @property
    def policies(self):
        """The policies' placement-core specifications, in command-line order."""
        with self.h5() as f:
            g = f["packing/policies"]
            return [_h5.text(g[k].attrs["spec"]) for k in _h5.subgroups(g)]

    @property
    def curves(self):
        """One row per (policy, grid point): `policy`, `arrived_pct`, and
        METRIC_mean, _sd, _min, _max for each metric."""
        with self.h5() as f:
            g = f["packing/policies"]
            parts = []
            for k in _h5.subgroups(g):
                p = g[k]
                cols = {"policy": _h5.text(p.attrs["spec"]), "arrived_pct": p["arrived_pct"][()]}
                for m in self.METRICS:
                    for st in ("mean", "sd", "min", "max"):
                        cols[f"{m}_{st}"] = p[f"{m}_{st}"][()]
                parts.append(pd.DataFrame(cols))
        return pd.concat(parts, ignore_index=True)

    @property
    def seed_curves(self):
        """One row per (policy, seed, grid point): the metrics of each seed."""
        with self.h5() as f:
            g = f["packing/policies"]
            parts = []
            for k in _h5.subgroups(g):
                p = g[k]
                for i, s in enumerate(_h5.subgroups(p["seeds"])):  # sKK: seed k is replication k
                    d = {m: p["seeds"][s][m][()] for m in ("arrived_pct",) + self.METRICS}
                    parts.append(pd.DataFrame({"policy": _h5.text(p.attrs["spec"]), "seed": i, **d}))
        return pd.concat(parts, ignore_index=True)

    @property
    def pods(self):
        """One row per (policy, seed): pods placed with copies, and pods failed."""
        with self.h5() as f:
            g = f["packing/policies"]
            return pd.concat([pd.DataFrame({"policy": _h5.text(g[k].attrs["spec"]), "seed": range(len(g[k]["pods"])),
                                            "pods": g[k]["pods"][()], "pods_failed": g[k]["pods_failed"][()]})
                              for k in _h5.subgroups(g)], ignore_index=True)

    @property
    def summary(self):
        """Each policy's mean curves at the target (the last grid point)."""
        c = self.curves
        return c.groupby("policy", sort=False).tail(1).set_index("policy")[[f"{m}_mean" for m in self.METRICS]]


class PackPoint(_Point, Pack):
    """A point of a sweep of kind pack: a packing file (one seed) plus /sweep_point."""
    kind = "sweep-point"

    @classmethod
    def matches(cls, f, attrs):
        return "sweep_point" in f and Pack.matches(f, attrs)


class Compare(Result):
    """A comparison file of `tarmac compare` (docs/output.md "Comparison
    files"): per-run metrics, and per metric a row per policy with its mean,
    confidence interval and paired difference to the first policy."""
    kind = "compare"
    command = "tarmac compare"

    @classmethod
    def matches(cls, f, attrs):
        return _h5.text(attrs.get("kind", "")) == "compare"

    def describe(self):
        return (f"{', '.join(self.policies)}; {self.figures['replications']} replications of "
                f"{self.provenance.scenario_name!r}")

    def _attr_lines(self, name):
        with self.h5() as f:
            return _lines(f["compare"].attrs.get(name))

    @property
    def policies(self):
        """The policy labels, the first being the baseline of the differences."""
        return self._attr_lines("policies")

    @property
    def policy_specs(self):
        return self._attr_lines("policy_specs")

    @property
    def policy_settings(self):
        """What each policy changed in the scenario (`--set`), '' for none."""
        s = self._attr_lines("policy_settings")
        return s + [""] * (len(self.policies) - len(s))

    @property
    def figures(self):
        """replications, warmup_s, horizon_s, confidence, t_quantile."""
        return self.scalars("compare")

    @property
    def runs(self):
        """/compare/runs: one row per (policy, replication)."""
        return self.table("compare/runs")

    @property
    def class_runs(self):
        """/compare/class_runs: one row per (policy, replication, class);
        empty without per-class tables."""
        with self.h5() as f:
            return _h5.table(f["compare/class_runs"]) if "compare/class_runs" in f else pd.DataFrame()

    def _metric_names(self, group):
        with self.h5() as f:
            return _h5.subgroups(f[group]) if group in f else []

    @property
    def metric_names(self):
        return self._metric_names("compare/metrics")

    @property
    def metric_info(self):
        """One row per metric: its short `label`, `units` and `description`."""
        with self.h5() as f:
            g = f["compare/metrics"]
            return pd.DataFrame([{"metric": m, **{a: _h5.text(g[m].attrs.get(a, "")) for a in
                                                  ("label", "units", "description")}}
                                 for m in _h5.subgroups(g)]).set_index("metric")

    def metric(self, name, per_class=False):
        """The table of one metric: one row per policy (per class and policy)."""
        return self.table(f"compare/{'class_metrics' if per_class else 'metrics'}/{name}")

    def _long(self, group):
        names = self._metric_names(group)
        with self.h5() as f:
            parts = [_h5.table(f[f"{group}/{m}"]).assign(metric=m) for m in names]
        if not parts:
            return pd.DataFrame()
        df = pd.concat(parts, ignore_index=True)
        return df[["metric"] + [c for c in df.columns if c != "metric"]]

    @property
    def metrics(self):
        """Every metric's table stacked: one row per (metric, policy)."""
        return self._long("compare/metrics")

    @property
    def class_metrics(self):
        """Every per-class metric stacked: one row per (metric, class, policy)."""
        return self._long("compare/class_metrics")

    @property
    def summary(self):
        """The means: one row per policy, one column per metric."""
        return self.metrics.pivot(index="policy", columns="metric", values="mean")[self.metric_names]


class Breakeven(Result):
    """A breakeven file of `tarmac breakeven` (docs/output.md "Breakeven
    files"): owning, renting and the API over a range of token volumes."""
    kind = "breakeven"
    command = "tarmac breakeven"

    @classmethod
    def matches(cls, f, attrs):
        return _h5.text(attrs.get("kind", "")) == "breakeven"

    def describe(self):
        s = self.summary
        return (f"scenario {self.provenance.scenario_name!r}, {len(self.volume)} volumes, "
                f"owning beats the API from {s['own_beats_api_tokens_per_month']:.3g} tokens/month")

    @property
    def summary(self):
        """The scalars of /breakeven ({name: value}); `cost_parameters` is JSON text."""
        return self.scalars("breakeven")

    @property
    def volume(self):
        return self.table("breakeven/volume")

    @property
    def fleet(self):
        return self.table("breakeven/fleet")

    @property
    def utilization(self):
        return self.table("breakeven/utilization")


class Sweep(Result):
    """A merged sweep file of `tarmac sweep merge` (docs/output.md "The
    merged file"): one row per point, the parameters per combination, means
    and standard deviations, failed points, and links to every point file."""
    kind = "sweep"
    command = "tarmac sweep merge"

    @classmethod
    def matches(cls, f, attrs):
        return _h5.text(attrs.get("kind", "")) == "sweep"

    def describe(self):
        s = self.summary
        return (f"{self.sweep_kind} sweep {os.path.basename(s['sweep_file'])}: {s['n_points']} points "
                f"({s['n_ok']} ok, {s['n_failed']} failed, {s['n_missing']} missing)")

    @property
    def sweep_kind(self):
        with self.h5() as f:
            return _h5.text(f["sweep"].attrs["sweep_kind"])

    @property
    def summary(self):
        """n_points, n_combos, replications, n_ok, n_failed, n_missing, the
        sweep file and its text, the base, the points folder, the version."""
        return self.scalars("sweep")

    @property
    def points(self):
        return self.table("sweep/points")

    @property
    def params(self):
        """One row per combination, one column per parameter (JSON path);
        coded string columns become Categoricals of their `values`."""
        with self.h5() as f:
            g = f["sweep/params"]
            df = _h5.table(g, labels=False)
            for c in df.columns:
                if c in g and "values" in g[c].attrs:
                    df[c] = pd.Categorical.from_codes(df[c].astype("int64"), _lines(g[c].attrs["values"]))
        return df

    @property
    def mean(self):
        return self.table("sweep/mean")

    @property
    def sd(self):
        return self.table("sweep/sd")

    @property
    def failed(self):
        """One row per failed point: point, exit_code, message."""
        with self.h5() as f:
            g = f["sweep/failed"]
            df = _h5.table(g)
            df["message"] = (_lines(g.attrs["messages"]) if "messages" in g.attrs and len(df) else [])[:len(df)]
        return df

    @property
    def table_joined(self):
        """/sweep/points joined with the parameters of each point's combination."""
        return self.points.join(self.params, on="combo")

    def curves(self, mean=False):
        """A packing sweep's curves as an xarray Dataset, dims (point, grid) or
        with mean (combo, grid); arrived_pct is each row's grid."""
        import xarray as xr
        g_name, dim = ("sweep/curves_mean", "combo") if mean else ("sweep/curves", "point")
        with self.h5() as f:
            if g_name not in f:
                raise TarmacError(self.path, f"a {self.sweep_kind} sweep has no /{g_name}")
            g = f[g_name]
            return xr.Dataset({k: ((dim, "grid"), g[k][()], {a: _h5.text(v) for a, v in g[k].attrs.items()
                                                             if a in ("units", "long_name")})
                               for k in g if g[k].ndim == 2})  # not the dimension scales

    def point_file(self, point):
        """Open the file of point `point` through the merged file's link."""
        from . import open as open_result
        with self.h5() as f:
            link = f["sweep/files"].get(f"p{point:06d}", getlink=True)
            if not isinstance(link, h5py.ExternalLink):
                raise TarmacError(self.path, f"point {point} has no file (failed or missing)")
        return open_result(os.path.join(os.path.dirname(self.path), link.filename))


class Size(Result):
    """The answer of `tarmac size --json`, saved to a file (size writes no
    HDF5 file): the chosen fleet, its neighbours and the frontier."""
    kind = "size"
    command = "tarmac size"

    def __init__(self, path, doc):
        super().__init__(path, {})
        self.data = doc  # the whole JSON document

    @classmethod
    def matches_json(cls, doc):
        return isinstance(doc, dict) and doc.get("command") == "size"

    def describe(self):
        c = self.data["chosen"]
        pools = ", ".join(f"{p['name']} {p['nodes']} nodes" for p in c["pools"])
        return f"scenario {self.data['scenario']!r}: {pools}, {c['usd_per_month']:.0f} USD/month"

    @staticmethod
    def _fleets(rows, role):
        out = []
        for i, fl in enumerate(rows):
            for p in fl["pools"]:
                out.append({"role": role, "fleet": i, "pool": p["name"], "gpu_type": p["gpu_type"],
                            "nodes": p["nodes"], "gpus": p["gpus"], "meets": fl["meets"],
                            "usd_per_month": fl["usd_per_month"], "jobs_rejected": fl["jobs_rejected"]})
        return out

    @property
    def fleets(self):
        """One row per (fleet, pool): the chosen fleet, its neighbours, the frontier."""
        d = self.data
        return pd.DataFrame(self._fleets([d["chosen"]], "chosen") + self._fleets(d.get("neighbours", []), "neighbour")
                            + self._fleets(d.get("frontier", []), "frontier"))

    @property
    def targets(self):
        """The chosen fleet's targets: mean, confidence bound and limit."""
        return pd.DataFrame(self.data["chosen"]["targets"])

    @property
    def summary(self):
        return {k: v for k, v in self.data.items() if not isinstance(v, (dict, list))}

    @property
    def provenance(self):
        return Provenance(command=self.command, version=self.data.get("tarmac_version"), libraries={},
                          scenario_name=self.data.get("scenario"))

    def h5(self):
        raise TarmacError(self.path, "a size answer is JSON, not HDF5: use .data")


class SizeFile(Result):
    """A size file of `tarmac size -o FILE` (docs/output.md "Size files"):
    every fleet the search simulated, along `candidate`, and which it chose."""
    kind = "size"
    command = "tarmac size"

    @classmethod
    def matches(cls, f, attrs):
        return _h5.text(attrs.get("kind", "")) == "size"

    def describe(self):
        c = self.chosen
        pools = ", ".join(f"{k} {int(v)} nodes" for k, v in c.items() if k in self.pools)
        return f"scenario {self.provenance.scenario_name!r}: {pools} ({len(self.candidates)} fleets simulated)"

    @property
    def pools(self):
        with self.h5() as f:
            return [_h5.text(x) for x in f["size/pool_name"][()]]

    @property
    def terms(self):
        with self.h5() as f:
            return [_h5.text(x) for x in f["size/term_name"][()]]

    @property
    def candidates(self):
        """One row per fleet simulated, in search order: nodes per pool, the
        verdict (pass, why, runs_meeting), each term's mean and bound, costs."""
        with self.h5() as f:
            g = f["size"]
            n = g["candidate"].shape[0]
            pools, terms = self.pools, self.terms
            cols = {}
            for k, p in enumerate(pools):
                cols[p] = g["nodes"][()][:, k]
            for name, ds in g.items():
                if isinstance(ds, h5py.Dataset) and ds.shape == (n,) and ds.dtype.kind in "iuf" \
                        and name != "candidate":
                    cols[name] = ds[()]
            for k, t in enumerate(terms):
                cols[f"{t} mean"] = g["mean"][()][:, k]
                cols[f"{t} bound"] = g["bound"][()][:, k]
            return pd.DataFrame(cols)

    @property
    def chosen(self):
        """The chosen fleet's row of `candidates`."""
        with self.h5() as f:
            row = int(f["size/chosen"][()])
        return self.candidates.iloc[row]

    @property
    def summary(self):
        return self.scalars("size")


# first match wins: the more specific kinds first
KINDS = [RunPoint, PackPoint, Replay, Run, Compare, Breakeven, Sweep, Pack, SizeFile]
JSON_KINDS = [Size]
