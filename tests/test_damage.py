"""Every kind of damage to a store, through ``info``, every algorithm command (but ``mst``, which
refuses this directed store before reading it), ``recode`` and
``verify``: a command that reads the damaged part exits 4 naming the store, the array and the chunk
(no traceback, and no recoded store), one that does not read it succeeds, and ``verify`` always
finds it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import graphtier as gt
from graphtier.cli import main

from . import damage as d

CHUNK_EDGES = 16
ALGORITHMS = {
    "bfs": ["--source", "0"],
    "sssp": ["--source", "0"],
    "pagerank": [],
    "cc": [],
    "scc": [],
    "mis": ["--seed", "1"],
    "color": ["--seed", "1"],
    "bc": ["-k", "4", "--seed", "0"],
}
# What each command reads of a directed, weighted store with a reverse graph and perm.
READS = {
    "bfs": {"adj", "indptr", "perm"},
    "sssp": set(d.ARRAYS),  # parents are pulled over the stored reverse, with its weights
    "pagerank": {"indptr", "perm", "reverse/adj", "reverse/indptr"},  # pulls over in-edges
    "cc": {"adj", "indptr", "perm"},
    "scc": {"adj", "indptr", "perm"},  # on the CPU a depth-first walk over out-edges (the GPU's passes read both ways)
    **{name: {"adj", "indptr", "perm", "reverse/adj", "reverse/indptr"} for name in ("mis", "color")},  # both ways, unweighted
    "bc": {"adj", "indptr", "perm"},
    "recode": set(d.ARRAYS),  # through the same checks as a query's loads
}
EVERY = {"info", *READS, "verify"}


def readers(*arrays: str) -> set[str]:
    """The algorithm commands that read every one of ``arrays``, and verify."""
    return {name for name, reads in READS.items() if set(arrays) <= reads} | {"verify"}


def _weight_changed(store):
    data = d.body(store, "reverse/weights", 0)
    w = data.view(np.float32)
    w[0] = w[np.flatnonzero(w != w[0])[0]]  # another of its weights: within the range the build recorded
    d.rewrite(store, "reverse/weights", 0, data)
    return "reverse/adj", None


def _reverse_edges_changed(store):
    d.set_attribute(store, "reverse", "n_edges", 1)
    return "reverse/adj", None


# (id, damage: store -> (array, chunk) it names, the commands that must fail)
CASES = [
    ("root-metadata-missing", lambda s: d.drop_metadata(s, ""), EVERY),
    ("root-metadata-garbled", lambda s: d.garble_metadata(s, ""), EVERY),
    *[(f"{a}-metadata-{how}", lambda s, a=a, f=f: f(s, a), EVERY) for a in ("reverse", *d.ARRAYS) for how, f in (("missing", d.drop_metadata), ("garbled", d.garble_metadata))],
    *[
        (f"{a}-chunk-{how}", lambda s, a=a, f=f: f(s, a, 1 if a.endswith("adj") else 0), readers(a) | ({"info"} if a.endswith("adj") and how != "flipped" else set()))
        for a in d.ARRAYS
        for how, f in (("missing", d.drop_chunk), ("truncated", d.truncate_chunk), ("flipped", d.flip_byte))
        if how != "truncated" or a.endswith("adj")  # a vector's truncated chunk fails its checksum as a flipped byte does
    ],
    ("adj-chunk-cut-checksum-right", lambda s: d.cut_chunk(s, "adj", 1), readers("adj") | {"info"}),
    ("weights-chunk-cut-checksum-right", lambda s: d.cut_chunk(s, "weights", 1), readers("weights")),
    ("adj-header-version", lambda s: d.set_header(s, "adj", 1, "version", 1), readers("adj") | {"info"}),
    ("adj-header-edges", lambda s: d.set_header(s, "adj", 1, "n_edges", 1), readers("adj")),
    ("reverse-adj-header-first-source", lambda s: d.set_header(s, "reverse/adj", 2, "first_src", 1), readers("reverse/adj")),
    ("adj-id-out-of-range", lambda s: d.id_out_of_range(s, "adj", 1), readers("adj")),
    ("indptr-shifted", lambda s: d.shift_indptr(s, CHUNK_EDGES), readers("adj", "indptr")),
    ("indptr-decreasing", d.unsort_indptr, readers("indptr")),
    ("reverse-not-transpose", lambda s: (d.retarget_edge(s, "reverse/adj", 1)[0], None), {"verify"}),
    ("reverse-weight-changed", _weight_changed, {"verify"}),
    ("attribute-vertices", lambda s: d.set_attribute(s, "", "n_vertices", "many"), EVERY),
    ("attribute-reverse-edges", _reverse_edges_changed, EVERY),
    ("attribute-degree", lambda s: d.set_attribute(s, "", "degree", {"max": 1, "mean": 1.0, "histogram": []}), {"verify"}),
    ("attribute-weights", lambda s: d.set_attribute(s, "", "weights", {"min": -1.0, "max": 1.0, "mean": 0.5}), {"verify"}),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A small directed, weighted store with a reverse graph and perm, several chunks per array."""
    rng = np.random.default_rng(7)
    edges = gt.generators.urand(5, edge_factor=4, seed=1)
    store = tmp_path_factory.mktemp("damage") / "g.gt"
    gt.build(np.column_stack([edges, rng.random(len(edges))]), store, chunk_edges=CHUNK_EDGES, reverse=True, order="degree", progress=False)
    return store


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_pristine_store_passes_every_command(pristine, capsys):
    for name, extra in ALGORITHMS.items():
        assert run(capsys, name, pristine, *extra, "--device", "cpu")[0] == 0, name
    code, out, _ = run(capsys, "verify", pristine, "--json")
    assert code == 0 and json.loads(out)["ok"] and json.loads(out)["chunks_read"] == 4 * 8  # adj and weights, both ways


@pytest.mark.parametrize("damage,fails", [pytest.param(f, fails, id=name) for name, f, fails in CASES])
def test_damage(pristine, tmp_path, capsys, damage, fails):
    store, (array, chunk) = d.damaged_copy(pristine, tmp_path / "d.gt", damage)
    named = f"{array} chunk {chunk}" if chunk is not None else (array or "zarr.json")
    copy = tmp_path / "r.gt"
    commands = {"info": [], **{name: [*extra, "--device", "cpu"] for name, extra in ALGORITHMS.items()}, "recode": [copy, "--chunk-edges", 2 * CHUNK_EDGES]}
    for name, extra in commands.items():
        code, _, err = run(capsys, name, store, *extra)
        if name in fails:
            assert code == 4, (name, err)
            assert str(store) in err and named in err, (name, err)
        else:
            assert code == 0, (name, err)
    assert copy.exists() == ("recode" not in fails)
    code, out, err = run(capsys, "verify", store, "--json")
    report = json.loads(out)
    assert code == 4 and not report["ok"] and not err
    found = [(p["array"], p["chunk"]) for p in report["problems"]]
    if array:
        assert (array, chunk) in found, found
    else:
        assert found == [(None, None)] and "zarr.json" in report["problems"][0]["message"]
