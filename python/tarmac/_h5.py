# SPDX-License-Identifier: Apache-2.0
"""_h5.py — reading tarmac's HDF5 conventions (docs/output.md, docs/hdf5-io.md).

A *table* is a group with a `columns` attribute, one 1-D dataset per column;
a coded column (an integer code with a `labels` attribute) has its names in
the string dataset `<column>_name` beside it. A *group of scalars* holds one
0-D dataset per figure. Everything here takes an open h5py group and returns
plain Python, numpy or pandas values.
"""
import h5py
import numpy as np
import pandas as pd


def text(v):
    """An HDF5 string (bytes or str, attribute or dataset value) as str."""
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def value(d):
    """A 0-D dataset as a Python value: str for strings, int or float."""
    if h5py.check_string_dtype(d.dtype) is not None:
        return d.asstr()[()]
    v = d[()]
    return v.item() if isinstance(v, np.generic) else v


def scalars(g):
    """{name: value} of the 0-D datasets directly in group g, in file order."""
    return {k: value(d) for k, d in g.items()
            if isinstance(d, h5py.Dataset) and d.shape == ()}


def subgroups(g):
    """The member groups of g, in file order (external links not followed)."""
    return [k for k in g if isinstance(g.get(k, getlink=True), h5py.HardLink)
            and isinstance(g[k], h5py.Group)]


def names(g, column):
    """The names behind a coded column: its `<column>_name` dataset (whole
    names), else its `labels` attribute (one per line); None when uncoded."""
    if column + "_name" in g:
        return [text(v) for v in g[column + "_name"][()]]
    if "labels" in g[column].attrs:
        return text(g[column].attrs["labels"]).split("\n")
    return None


def table(g, labels=True):
    """A table group as a DataFrame, columns in the file's order. With
    labels, a coded column becomes a pandas Categorical whose categories are
    the names in code order, so `.cat.codes` are the file's codes (-1, as for
    a job that never started on a GPU type, is a missing value)."""
    out = {}
    for c in (text(c) for c in g.attrs["columns"]):
        v = g[c][()]
        if h5py.check_string_dtype(g[c].dtype) is not None:
            v = g[c].asstr()[()]
        cats = names(g, c) if labels and v.dtype.kind in "iu" else None
        if cats and len(set(cats)) == len(cats) and (len(v) == 0 or (v.min() >= -1 and v.max() < len(cats))):
            v = pd.Categorical.from_codes(v.astype(np.int64), cats)
        out[c] = v
    return pd.DataFrame(out)


def groups_frame(g, index_name):
    """One row per member group of g (a pool, a class, ...): its scalars as
    columns and its attributes (index, kind, model, ...) before them."""
    rows = {}
    for k in subgroups(g):
        row = {a: (text(v) if isinstance(v, (bytes, str)) else v.item() if isinstance(v, np.generic) else v)
               for a, v in g[k].attrs.items()}
        row.update(scalars(g[k]))
        rows[k] = row
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = index_name
    return df


def tables_in(f):
    """Paths of every table of the file (groups with a `columns` attribute),
    external links (a merged sweep's /sweep/files) not followed."""
    found = []

    def walk(g, prefix):
        for k in subgroups(g):
            p = f"{prefix}{k}"
            if "columns" in g[k].attrs:
                found.append(p)
            walk(g[k], p + "/")

    walk(f, "")
    return found
