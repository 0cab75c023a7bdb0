// BFS from many sources' functors on the GPU (graphtier/algorithms/msbfs.py has the driver and
// the CPU functors): a bit per source of the pass in each vertex's words of W bits.
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
INSTANTIATE(COMPUTE, Settle<u64>)
INSTANTIATE(COMPUTE, Settle<u32>)
