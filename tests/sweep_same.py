# SPDX-License-Identifier: Apache-2.0
"""sweep_same.py — the check that tests/sweep_mpi.sh and sweep_slurm.sh
share: sweeps run another way (mpirun, a Slurm array, GNU parallel) give the
same point files, bit for bit, and the same merged tables as one process.

    sweep_same.py NPOINTS REF_DIR REF_MERGED --points DIR... --merged FILE...
                  [--tables points,mean,sd,params] [--ignore NAME...]

Every dataset of REF_DIR/pNNNNNN.h5 (NNNNNN < NPOINTS) must exist with the
same bytes in each DIR's file of that name, and no other dataset may be
there; 1-D string datasets (the *_name lists) compare by value, not by
their pointers. --ignore drops datasets by path (another sweep file's
name, say). Every column of the REF_MERGED tables (/sweep/TABLE, columns
listed in its "columns" attribute) must equal the same column of each
merged FILE. Exit 1 with one line per difference.
"""
import argparse
import sys

import h5py
import numpy as np


def leaves(path):
    out = {}
    with h5py.File(path) as f:
        def keep(name, o):
            if isinstance(o, h5py.Dataset):
                strings = o.shape and h5py.check_string_dtype(o.dtype)
                out[name] = o.asstr()[()].tolist() if strings else o[()]
        f.visititems(keep)
    return out


def same(a, b):
    return np.asarray(a).tobytes() == np.asarray(b).tobytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("npoints", type=int)
    ap.add_argument("ref_dir")
    ap.add_argument("ref_merged")
    ap.add_argument("--points", nargs="+", default=[])
    ap.add_argument("--merged", nargs="+", default=[])
    ap.add_argument("--tables", default="points,mean,sd,params")
    ap.add_argument("--ignore", nargs="*", default=[])
    a = ap.parse_args()
    bad = 0
    for i in range(a.npoints):
        ref = leaves(f"{a.ref_dir}/p{i:06d}.h5")
        for k in a.ignore:
            ref.pop(k, None)
        for d in a.points:
            got = leaves(f"{d}/p{i:06d}.h5")
            for k in a.ignore:
                got.pop(k, None)
            diff = [k for k in ref if k not in got or not same(ref[k], got[k])]
            if diff or ref.keys() != got.keys():
                print(f"point {i} in {d} differs: {(diff or sorted(got.keys() ^ ref.keys()))[:5]}")
                bad += 1
    with h5py.File(a.ref_merged) as ref:
        for m in a.merged:
            with h5py.File(m) as got:
                for t in a.tables.split(","):
                    for c in ref["sweep"][t].attrs["columns"]:
                        if not same(ref["sweep"][t][c][()], got["sweep"][t][c][()]):
                            print(f"{m}: merged {t}/{c} differs")
                            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
