# SPDX-License-Identifier: Apache-2.0
"""_base.py — what every tarmac result has: a path, a kind, tables, groups of
scalars and provenance; and the errors open() raises."""
import contextlib
import dataclasses
import json
import os

import h5py

from . import _h5


class TarmacError(Exception):
    """A file that is not a tarmac result this package can read. The message
    starts with the file's path; `path` holds it."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path = path


class MissingFile(TarmacError, FileNotFoundError):
    """The path names no file."""


class NotTarmacFile(TarmacError, ValueError):
    """A file that is readable but is not a tarmac result (or a kind of result
    this version of the package does not know)."""


class DamagedFile(TarmacError, OSError):
    """A file that looks like HDF5 but cannot be read whole: truncated (a copy
    cut short) or overwritten."""


@dataclasses.dataclass
class Provenance:
    """What made the file (docs/output.md, `/provenance`). Fields a kind does
    not record are None: compare and breakeven files have no `replication` or
    `policy` (they come from many runs), packing and merged sweep files no
    scenario. `command` is the tarmac command that writes this kind of file;
    `command_line` is the whole command line that wrote this one (shell-
    quoted; None in files written before tarmac recorded it)."""
    command: str
    version: str
    libraries: dict
    scenario_name: str = None
    scenario_source: str = None
    scenario_given: str = None  # the scenario text exactly as given
    scenario: dict = None  # the resolved scenario (every default filled in)
    seed: int = None
    replication: int = None
    policy: str = None
    command_line: str = None

    def __repr__(self):
        items = [f"{k}={getattr(self, k)!r}" for k in
                 ("command", "version", "scenario_name", "scenario_source", "seed", "replication", "policy")
                 if getattr(self, k) is not None]
        return f"Provenance({', '.join(items)})"


class Result:
    """Base of every kind. A subclass sets `kind` and `command`, says in
    `matches(f, attrs)` whether an open h5py.File is one of its files, and
    adds the properties of its layout; `describe()` is the one line its repr
    shows. Files are opened per access and closed at once, so a Result holds
    no HDF5 handle."""
    kind = None
    command = None

    def __init__(self, path, attrs):
        self.path = os.fspath(path)
        self.attrs = attrs  # the root attributes

    @classmethod
    def matches(cls, f, attrs):
        raise NotImplementedError

    def describe(self):
        return ""

    def __repr__(self):
        d = self.describe()
        return f"<tarmac.{type(self).__name__} {self.kind} {self.path!r}{': ' + d if d else ''}>"

    @contextlib.contextmanager
    def h5(self):
        """The file, open for reading (h5py.File); a read that fails raises a
        TarmacError naming the file and what was read."""
        try:
            f = h5py.File(self.path, "r")
        except FileNotFoundError:
            raise MissingFile(self.path, "no such file") from None
        except OSError as ex:
            raise DamagedFile(self.path, f"cannot be read as HDF5 ({ex})") from None
        try:
            yield f
        except KeyError as ex:
            raise TarmacError(self.path, f"a {self.kind} file without a part this package reads ({ex})") from None
        except OSError as ex:
            raise DamagedFile(self.path, f"a read failed, damaged or truncated? ({ex})") from None
        finally:
            f.close()

    # --- generic access: any table, any group of scalars ---
    def tables(self):
        """Paths of every table of the file (what table() reads)."""
        with self.h5() as f:
            return _h5.tables_in(f)

    def table(self, name, labels=True):
        """The table `name` (e.g. "jobs", "ledger/pools") as a DataFrame; with
        labels, coded columns are Categoricals of their names (_h5.table)."""
        with self.h5() as f:
            if name not in f or "columns" not in f[name].attrs:
                raise TarmacError(self.path, f"no table /{name} (tables: {', '.join(_h5.tables_in(f))})")
            return _h5.table(f[name], labels)

    def scalars(self, name):
        """{name: value} of the scalars in group `name` (e.g. "summary", "cost")."""
        with self.h5() as f:
            return _h5.scalars(f[name])

    def dataset(self, name):
        """The table or group `name` as an xarray Dataset along its named
        dimension (netCDF-4 dimension scales, docs/output.md "Dimensions and
        names"); loaded into memory, the file closed. Needs xarray and
        h5netcdf. Times stay float seconds (no timedelta decoding)."""
        import xarray as xr
        try:
            with xr.open_dataset(self.path, engine="h5netcdf", group=name, decode_timedelta=False) as ds:
                return ds.load()
        except OSError as ex:
            raise DamagedFile(self.path, f"xarray cannot read /{name} ({ex})") from None

    # --- provenance (docs/output.md "/provenance") ---
    @property
    def provenance(self):
        with self.h5() as f:
            p = _h5.scalars(f["provenance"])
            libs = _h5.scalars(f["provenance/libraries"]) if "provenance/libraries" in f else {}
        resolved = p.get("scenario_resolved")
        return Provenance(command=self.command, version=p.get("tarmac_version"), libraries=libs,
                          scenario_name=p.get("scenario_name"), scenario_source=p.get("scenario_source"),
                          scenario_given=p.get("scenario_given"),
                          scenario=json.loads(resolved) if resolved else None,
                          seed=p.get("seed"), replication=p.get("replication"), policy=p.get("policy"),
                          command_line=p.get("command_line"))
