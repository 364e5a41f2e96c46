# SPDX-License-Identifier: Apache-2.0
"""tarmac — read the result files of the tarmac GPU-fleet simulator.

    import tarmac
    r = tarmac.open("tarmac-out.h5")     # a Run, Compare, Sweep, ... (docs/python.md)
    print(r)                             # what the file is
    r.summary, r.jobs, r.ledger, r.provenance

Pure Python over h5py, numpy and pandas (xarray and h5netcdf for
Result.dataset and Sweep.curves). The layout it reads: docs/output.md.
"""
import builtins
import json
import os

import h5py

from ._base import DamagedFile, MissingFile, NotTarmacFile, Provenance, Result, TarmacError
from .kinds import JSON_KINDS, KINDS, Breakeven, Compare, Pack, PackPoint, Replay, Run, RunPoint, Size, Sweep

__all__ = ["open", "TarmacError", "MissingFile", "NotTarmacFile", "DamagedFile", "Provenance", "Result",
           "Run", "Replay", "RunPoint", "Pack", "PackPoint", "Compare", "Breakeven", "Sweep", "Size", "KINDS"]

for _c in (TarmacError, MissingFile, NotTarmacFile, DamagedFile, Provenance, Result, *KINDS, *JSON_KINDS):
    _c.__module__ = __name__  # tarmac.Run, tarmac.MissingFile in reprs and tracebacks

SCHEMA_VERSION = 1  # the newest layout this package reads (docs/output.md)
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def open(path):  # noqa: A001 (tarmac.open, as the package's one entry point)
    """The result in `path`, as an object of its kind (a Result subclass).

    Raises MissingFile for no file, DamagedFile for a truncated or damaged
    HDF5 file, NotTarmacFile for a file that is no tarmac result (or of a
    kind this version does not know); all are TarmacError, whose message
    starts with the path.
    """
    path = os.fspath(path)
    try:
        with builtins.open(path, "rb") as fh:
            head = fh.read(len(HDF5_SIGNATURE))
    except FileNotFoundError:
        raise MissingFile(path, "no such file") from None
    except IsADirectoryError:
        raise NotTarmacFile(path, "a directory, not a result file") from None
    except OSError as ex:
        raise TarmacError(path, f"cannot be read ({ex.strerror or ex})") from None
    if head != HDF5_SIGNATURE:
        return _open_json(path)
    try:
        f = h5py.File(path, "r")
    except OSError as ex:
        raise DamagedFile(path, f"an HDF5 signature but the file cannot be opened: truncated or "
                                f"damaged? ({ex})") from None
    try:
        attrs = dict(f.attrs)
        created = attrs.get("created_by")
        created = created.decode() if isinstance(created, bytes) else created
        if not isinstance(created, str) or not created.startswith("tarmac "):
            raise NotTarmacFile(path, "an HDF5 file, but not a tarmac result (no root attribute "
                                      "created_by = 'tarmac VERSION')")
        schema = int(attrs.get("schema_version", 0))
        if schema > SCHEMA_VERSION:
            raise NotTarmacFile(path, f"schema_version {schema}, newer than this package reads "
                                      f"({SCHEMA_VERSION}); written by {created}")
        for cls in KINDS:
            if cls.matches(f, attrs):
                return cls(path, attrs)
        kind = attrs.get("kind")
        what = f"kind {kind.decode() if isinstance(kind, bytes) else kind!r}" if kind is not None else \
            f"groups {', '.join(f.keys())}"
        raise NotTarmacFile(path, f"a tarmac result ({what}, {created}) that this version of the "
                                  f"package does not know")
    except (OSError, KeyError) as ex:
        raise DamagedFile(path, f"a read failed: truncated or damaged? ({ex})") from None
    finally:
        f.close()



def _open_json(path):
    """A result that tarmac prints as JSON and the user saved (size --json)."""
    try:
        with builtins.open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (UnicodeDecodeError, ValueError):
        raise NotTarmacFile(path, "neither HDF5 nor JSON: not a tarmac result") from None
    for cls in JSON_KINDS:
        if cls.matches_json(doc):
            return cls(path, doc)
    cmd = doc.get("command") if isinstance(doc, dict) else None
    raise NotTarmacFile(path, f"JSON, but not a result this package reads"
                              f"{f' (tarmac {cmd} --json; open the HDF5 file it wrote)' if cmd else ''}")
