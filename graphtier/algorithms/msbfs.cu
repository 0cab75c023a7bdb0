// BFS from many sources' functors on the GPU (graphtier/algorithms/msbfs.py has the driver and
// the CPU functors): a bit per source of the pass in each vertex's words of W bits; `full` (a
// word of 64 bits, as every field) has the pass's bits.
#include "runtime.cuh"

template <typename W>
struct Spread {  // u takes the sources that reached v at the last level and have not reached u
    const W* seen;
    const W* visit;
    W* next;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        W bits = visit[v] & ~seen[u];
        if (bits == 0 || (next[u] & bits) == bits) return false;
        return atomicOr(next + u, bits) == 0;  // queued by the first to give it a bit
    }
};

template <typename W>
struct GatherBits {  // pull: u takes its in-neighbours' frontier bits until every source has reached it
    const W* seen;
    const W* visit;
    W* next;
    u64 full;
    __device__ bool wanted(u32 u) const { return (seen[u] | next[u]) != W(full); }
    __device__ bool operator()(u32 u, u32 v, Edge) const {
        W bits = visit[v] & ~seen[u], now = next[u];
        if ((now & bits) != bits) now = atomicOr(next + u, bits) | bits;  // a warp's lanes may share u
        return (seen[u] | now) == W(full);
    }
    __device__ void adopt(u32, u32) const {}  // queued by the pull: every source has reached it
};

template <typename W>
struct Reached {  // after a pull: the vertices that got a bit and were not queued by it
    const W* seen;
    const W* next;
    u64 full;
    __device__ bool operator()(u32 u) const { return next[u] != 0 && (seen[u] | next[u]) != W(full); }
};

template <typename W>
struct Forget {  // the last frontier's bits, cleared (pulls read any in-neighbour's)
    W* visit;
    __device__ void operator()(u32 v) const { visit[v] = 0; }
};

template <typename W>
struct Settle {  // a vertex reached at this level pushes on its new sources next
    W* seen;
    W* visit;
    W* next;
    __device__ void operator()(u32 u) const {
        W bits = next[u];
        visit[u] = bits;
        seen[u] |= bits;
        next[u] = 0;
    }
};

INSTANTIATE(ADVANCE, Spread<u64>)
INSTANTIATE(ADVANCE, Spread<u32>)
INSTANTIATE(PULL, GatherBits<u64>)
INSTANTIATE(PULL, GatherBits<u32>)
INSTANTIATE(FILTER, Reached<u64>)
INSTANTIATE(FILTER, Reached<u32>)
INSTANTIATE(COMPUTE, Forget<u64>)
INSTANTIATE(COMPUTE, Forget<u32>)
INSTANTIATE(COMPUTE, Settle<u64>)
INSTANTIATE(COMPUTE, Settle<u32>)
