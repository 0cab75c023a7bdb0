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

// The heads sidecar (bfs.py, heads_on_gpu) of `count` lists (`offsets` into `dst`, a chunk's decoded
// sub-lists), in two launches. An edge a thread: each bids its id's degree and its place, so the
// longest list wins, the first on a tie (a warp whose edges share one list bids once: a hub's list
// fills whole chunks); then each list takes its winner's id (all ones for an empty list).
extern "C" __global__ void head_bids(const i64* offsets, const u32* dst, i64 count, const i64* indptr, u64* bids) {
    const i64 edges = offsets[count];
    for (i64 base = i64(blockIdx.x) * blockDim.x; base < edges; base += i64(gridDim.x) * blockDim.x) {  // uniform in a block
        const i64 j = base + threadIdx.x;
        i64 list = -1;
        u64 bid = 0;
        if (j < edges) {
            i64 lo = 0, hi = count;  // offsets[lo] <= j < offsets[hi]
            while (hi - lo > 1) {
                const i64 mid = (lo + hi) / 2;
                if (offsets[mid] <= j) lo = mid;
                else hi = mid;
            }
            const u32 u = dst[j];
            list = lo;
            bid = (min(u64(indptr[u + 1] - indptr[u]), 0xffffffffull) << 32) | (0xffffffffull - u64(j));
        }
        const i64 first = __shfl_sync(0xffffffffu, list, 0);
        if (__all_sync(0xffffffffu, list == first || list < 0)) {
            for (int offset = 16; offset; offset >>= 1) bid = max(bid, __shfl_down_sync(0xffffffffu, bid, offset));
            if (lane_id() == 0 && first >= 0) atomicMax(bids + first, bid);
        } else if (list >= 0) {
            atomicMax(bids + list, bid);
        }
    }
}

extern "C" __global__ void head_ids(const u64* bids, const u32* dst, i64 count, u32* heads) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += i64(gridDim.x) * blockDim.x)
        heads[i] = bids[i] ? dst[0xffffffffull - (bids[i] & 0xffffffffull)] : ~0u;
}

INSTANTIATE(ADVANCE, Visit)
INSTANTIATE(ADVANCE, VisitNext)
INSTANTIATE(SPANS, VisitNext)
INSTANTIATE(PULL, FindParent)
INSTANTIATE(COMPUTE, Start)
INSTANTIATE(FILTER, CopyLevel)
