// BFS's functors on the GPU (graphtier/algorithms/bfs.py has the driver and the CPU functors).
// Levels are numbered from 0 at the source; `level` is the one being found.
#include "runtime.cuh"

struct Visit {  // push: claim an unvisited neighbour
    int* dist;
    i64* parent;
    i64 level;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (dist[u] >= 0 || atomicCAS(dist + u, -1, int(level)) != -1) return false;
        parent[u] = v;
        return true;
    }
};

struct VisitNext {  // push from a layer (algorithms/layered.py): a level past v's, so layers need no level argument
    int* dist;
    i64* parent;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (dist[u] >= 0 || atomicCAS(dist + u, -1, dist[v] + 1) != -1) return false;
        parent[u] = v;
        return true;
    }
};

struct FindParent {  // pull: a parent is an in-neighbour in the frontier (a bitmap: 1 MB per 8 M vertices stays in L2)
    int* dist;
    i64* parent;
    const u32* bits;
    i64 level;
    __device__ bool wanted(u32 u) const { return dist[u] < 0; }
    __device__ bool operator()(u32, u32 v, Edge) const { return (bits[v >> 5] >> (v & 31)) & 1; }
    __device__ void adopt(u32 u, u32 v) const {
        dist[u] = int(level);
        parent[u] = v;
    }
};

struct CopyLevel {  // confluence on a coalesced store: an unvisited copy of a visited vertex joins it
    int* dist;
    i64* parent;
    const u32* partner;
    __device__ bool operator()(u32 v) const {
        u32 p = partner[v];
        if (dist[v] >= 0 || dist[p] < 0) return false;
        dist[v] = dist[p];
        parent[v] = parent[p];
        return true;
    }
};

struct Start {  // every vertex unvisited but the source, its own parent
    int* dist;
    i64* parent;
    i64 source;
    __device__ void operator()(u32 v) const {
        dist[v] = v == source ? 0 : -1;
        parent[v] = v == source ? source : -1;
    }
};

// The heads sidecar (bfs.py, best_connected): for each of `count` lists (`offsets` into `dst`, a
// chunk's decoded sub-lists), the id with the longest list of its own, the first on a tie; an empty
// list's is unknown (all ones). A list a thread: degrees are random reads of indptr, fast here.
extern "C" __global__ void best_connected(const i64* offsets, const u32* dst, i64 count, const i64* indptr, u32* heads) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += i64(gridDim.x) * blockDim.x) {
        i64 best = -1, longest = -1;
        for (i64 j = offsets[i]; j < offsets[i + 1]; ++j) {
            const u32 u = dst[j];
            const i64 degree = indptr[u + 1] - indptr[u];
            if (degree > longest) best = j, longest = degree;
        }
        heads[i] = best >= 0 ? dst[best] : ~0u;
    }
}

INSTANTIATE(ADVANCE, Visit)
INSTANTIATE(ADVANCE, VisitNext)
INSTANTIATE(SPANS, VisitNext)
INSTANTIATE(PULL, FindParent)
INSTANTIATE(COMPUTE, Start)
INSTANTIATE(FILTER, CopyLevel)
