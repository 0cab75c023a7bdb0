// Connected components' functors on the GPU (graphtier/algorithms/cc.py has the driver and the CPU
// functors). Every pointer leads to a smaller vertex, so roots are components' smallest vertices
// and a path ends where a vertex is its own parent.
#include "runtime.cuh"
#include "union_find.cuh"

struct Hook {
    u32* parent;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (v != u) hook(parent, v, u);
        return false;
    }
};

constexpr u64 UNKNOWN = ~0ull;      // a sidecar value not derived yet
constexpr u32 NONE = 0xFFFFFFFFu;  // no id (cc.py's NONE)

struct Sample {  // Afforest: each vertex hooks the first `sample` edges of its list, then is done
    u32* parent;
    const i64* indptr;
    i64 sample;
    const u64* samples;  // each list's first two ids, where the scheduler keeps them (cc.py's SAMPLES)
    i64 kept;
    static constexpr bool edges = true;
    __device__ bool wanted(u32 u) const { return !kept || samples[u] == UNKNOWN; }
    __device__ bool operator()(u32 u, u32 v, Edge e) const {
        if (e.id >= indptr[u] + sample) return true;
        if (u != v) hook(parent, u, v);
        return false;
    }
    __device__ void adopt(u32, u32) const {}
};

struct SampleKept {  // the same hooks, from the kept first ids
    u32* parent;
    const u64* samples;
    __device__ void operator()(u32 u) const {
        u64 ids = samples[u];
        if (ids == UNKNOWN) return;
        for (u32 v : {u32(ids), u32(ids >> 32)})
            if (v != NONE && v != u) hook(parent, u, v);
    }
};

struct Outside {  // vertices with edges outside the largest component
    const u32* parent;
    i64 largest;
    const i64* indptr;
    __device__ bool operator()(u32 v) const { return parent[v] != largest && indptr[v + 1] > indptr[v]; }
};

INSTANTIATE(ADVANCE, Hook)
INSTANTIATE(PULL, Sample)
INSTANTIATE(COMPUTE, SampleKept)
INSTANTIATE(FILTER, Outside)
INSTANTIATE(COMPUTE, Init)
INSTANTIATE(COMPUTE, Compress)
