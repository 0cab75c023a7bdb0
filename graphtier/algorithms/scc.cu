// Strongly connected components' functors on the GPU (graphtier/algorithms/scc.py has the driver
// and the CPU functors). Labels only drop (atomicMin), so a pass reaches the same fixpoint in any
// order; a vertex whose label dropped is queued to push it on.
#include "runtime.cuh"

constexpr u64 PLACED = ~0ull;  // the part of a placed vertex (scc.py's PLACED)

struct Init {  // own ids as labels, one part; trimmed: no in-edges or no out-edges
    u32* low_in;
    u32* low_out;
    u64* part;
    const i64* out_indptr;
    const i64* in_indptr;
    __device__ void operator()(u32 v) const {
        low_in[v] = low_out[v] = v;
        part[v] = out_indptr[v + 1] == out_indptr[v] || in_indptr[v + 1] == in_indptr[v] ? PLACED : 0;
    }
};

// Edge (v, u) inside a part lowers u's label to v's (atomicMin; true when this call lowered it, and
// u joins the frontier): low_in through out-edges, low_out through in-edges.
struct Spread {
    u32* labels;
    const u64* part;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (part[u] != part[v]) return false;
        u32 x = labels[v];
        return x < labels[u] && x < atomicMin(labels + u, x);
    }
};

struct Settle {  // after a pass: equal labels place v; else the pair is v's new part
    u32* low_in;
    u32* low_out;
    u64* part;
    __device__ void operator()(u32 v) const {
        if (part[v] == PLACED) return;
        if (low_in[v] == low_out[v]) {
            part[v] = PLACED;
        } else {
            part[v] = u64(low_out[v]) << 32 | low_in[v];
            low_in[v] = low_out[v] = v;
        }
    }
};

struct Unplaced {
    const u64* part;
    __device__ bool operator()(u32 v) const { return part[v] != PLACED; }
};

INSTANTIATE(COMPUTE, Init)
INSTANTIATE(ADVANCE, Spread)
INSTANTIATE(COMPUTE, Settle)
INSTANTIATE(FILTER, Unplaced)
