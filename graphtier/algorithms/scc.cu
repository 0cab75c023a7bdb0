// Strongly connected components' functors on the GPU (graphtier/algorithms/scc.py has the driver
// and the CPU functors). Labels only drop (atomicMin), so each half of a pass reaches the same
// fixpoint in any order; a vertex whose label dropped is queued to push it on.
#include "runtime.cuh"

constexpr u32 NONE = 0xFFFFFFFFu;   // no seed (scc.py's NONE)
constexpr u32 PLACED = NONE;        // the part of a placed vertex
constexpr u32 FIRST = 0xFFFFFFFEu;  // the first part

// Trimming: no in-edges or no out-edges places a vertex, its own id as label; the others are in the
// first part (true: queued), and only the pivot seeds.
struct Init {
    u32* colour;
    u32* part;
    const i64* out_indptr;
    const i64* in_indptr;
    i64 pivot;
    __device__ bool operator()(u32 v) const {
        bool trimmed = out_indptr[v + 1] == out_indptr[v] || in_indptr[v + 1] == in_indptr[v];
        colour[v] = trimmed || i64(v) == pivot ? v : NONE;
        part[v] = trimmed ? PLACED : FIRST;
        return !trimmed;
    }
};

// Edge (v, u) inside a part lowers u's label to v's (atomicMin; true when this call lowered it, and
// u joins the frontier): colours in the first half, the roots' ids in the second.
struct Spread {
    u32* labels;
    const u32* part;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (part[u] != part[v]) return false;
        u32 x = labels[v];
        return x < labels[u] && x < atomicMin(labels + u, x);
    }
};

struct Colour {  // after the first half: a vertex reached takes its colour as its part; roots seed the second
    const u32* colour;
    u32* reach;
    u32* part;
    __device__ bool operator()(u32 v) const {
        if (part[v] == PLACED) return false;
        u32 c = colour[v];
        if (c != NONE) part[v] = c;
        reach[v] = c == v ? v : NONE;
        return c == v;
    }
};

struct Reseed {  // after the second half: what a root reached is placed; every vertex left seeds the next pass
    u32* colour;
    const u32* reach;
    u32* part;
    __device__ bool operator()(u32 v) const {
        if (part[v] == PLACED) return false;
        if (reach[v] != NONE) {
            part[v] = PLACED;
            return false;
        }
        colour[v] = v;
        return true;
    }
};

struct Unplaced {
    const u32* part;
    __device__ bool operator()(u32 v) const { return part[v] != PLACED; }
};

INSTANTIATE(FILTER, Init)
INSTANTIATE(ADVANCE, Spread)
INSTANTIATE(FILTER, Colour)
INSTANTIATE(FILTER, Reseed)
INSTANTIATE(FILTER, Unplaced)
