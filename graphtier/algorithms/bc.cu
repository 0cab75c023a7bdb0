// Betweenness centrality's functors on the GPU (graphtier/algorithms/bc.py has the driver and the
// CPU functors): a bit per source of the batch in each vertex's words, and rows of `width` columns
// (v * width + b: source b at vertex v). Path counts are integer-valued doubles: their atomic adds
// (pushes) and sums (pulls) are exact in any order (below 2**53). Dependencies are gathered, a lane
// per source, never added by atomics.
#include "runtime.cuh"

struct Seeded {  // a batch's first frontier: its sources
    const u64* visit;
    __device__ bool operator()(u32 v) const { return visit[v] != 0; }
};

struct Spread {  // forward: u takes the sources that reached v at this level and not u before, and v's paths from each
    const u64* seen;
    const u64* visit;
    u64* next;
    double* sigma;
    i64 width;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        u64 bits = visit[v] & ~seen[u];
        if (bits == 0) return false;
        for (u64 rest = bits; rest; rest &= rest - 1) {
            i64 b = __ffsll(i64(rest)) - 1;
            atomicAdd(sigma + u * width + b, sigma[v * width + b]);
        }
        if ((next[u] & bits) == bits) return false;
        return atomicOr(next + u, bits) == 0;  // queued by the first to give it a bit
    }
};

struct Paths {  // pull: u's paths from source b through its in-neighbours on the last level from b, where b's search goes on and has not reached u
    const u64* seen;
    const u64* visit;
    u64* next;
    double* sigma;
    i64 width;
    u64 live;
    __device__ bool wanted(u32 u, u32 b) const { return (~seen[u] & live) >> b & 1; }
    __device__ u64 lanes_of(u32, u32 v) const { return visit[v]; }
    __device__ double operator()(u32 u, u32 v, Edge, u32 b) const { return sigma[v * width + b]; }
    __device__ void apply(u32 u, u32 b, double total) const {
        if (total > 0) {
            sigma[u * width + b] += total;  // out of core, a chunk's share at a time
            atomicOr(next + u, u64(1) << b);  // two warps share u's word beyond 32 sources
        }
    }
};

struct Reached {  // after a pull: the vertices some source reached at this level
    const u64* next;
    __device__ bool operator()(u32 u) const { return next[u] != 0; }
};

struct Forget {  // a vertex's bits cleared: the level's once it has pushed, the level below's once gathered from
    u64* visit;
    __device__ void operator()(u32 v) const { visit[v] = 0; }
};

struct Settle {  // a vertex reached at this level pushes its new sources next, at their depth
    u64* seen;
    u64* visit;
    u64* next;
    int* depth;
    i64 width;
    i64 level;
    __device__ void operator()(u32 u) const {
        u64 bits = next[u];
        visit[u] = bits;
        seen[u] |= bits;
        next[u] = 0;
        for (; bits; bits &= bits - 1) depth[u * width + __ffsll(i64(bits)) - 1] = int(level);
    }
};

struct Share {  // before a level gathers: the share of a path through each vertex one level deeper, (1 + delta) / sigma, and its sources' bits
    const int* depth;
    const double* sigma;
    const double* delta;
    double* ratio;
    u64* visit;
    i64 width;
    i64 count;
    i64 level;
    __device__ void operator()(u32 v) const {
        u64 bits = 0;
        for (i64 b = 0, at = v * width; b < count; ++b, ++at)
            if (depth[at] == level) {
                ratio[at] = (1.0 + delta[at]) / sigma[at];
                bits |= u64(1) << b;
            }
        visit[v] = bits;
    }
};

struct Dependency {  // backward, over v's out-edges: the shares of the neighbours one level deeper from source b, times v's paths
    const int* depth;
    const double* sigma;
    double* delta;
    const double* ratio;
    const u64* visit;
    i64 width;
    i64 level;
    __device__ bool wanted(u32 v, u32 b) const { return depth[v * width + b] == level; }
    __device__ u64 lanes_of(u32, u32 u) const { return visit[u]; }
    __device__ double operator()(u32 v, u32 u, Edge, u32 b) const { return ratio[u * width + b]; }
    __device__ void apply(u32 v, u32 b, double total) const { delta[v * width + b] += __dmul_rn(sigma[v * width + b], total); }
};

struct Accumulate {  // source by source: each reached vertex takes its dependency (and with endpoints, one per pair it ends)
    double* centrality;
    const int* depth;
    const double* delta;
    i64 width;
    i64 count;
    double endpoints;
    const double* own;  // a source's own count
    __device__ void operator()(u32 v) const {
        double c = centrality[v];
        for (i64 b = 0; b < count; ++b) {
            int d = depth[v * width + b];
            if (d > 0)
                c += delta[v * width + b] + endpoints;
            else if (d == 0)
                c += own[b];
        }
        centrality[v] = c;
    }
};

INSTANTIATE(FILTER, Seeded)
INSTANTIATE(ADVANCE, Spread)
INSTANTIATE(GATHER_LANES, Paths)
INSTANTIATE(FILTER, Reached)
INSTANTIATE(COMPUTE, Forget)
INSTANTIATE(COMPUTE, Settle)
INSTANTIATE(COMPUTE, Share)
INSTANTIATE(GATHER_LANES, Dependency)
INSTANTIATE(COMPUTE, Accumulate)
