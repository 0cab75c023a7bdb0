// Betweenness centrality's functors on the GPU (graphtier/algorithms/bc.py has the driver and the
// CPU functors). Path counts are integer-valued doubles: their atomic adds are exact in any order
// (below 2**53). Dependencies are gathered, never added by atomics.
#include "runtime.cuh"

struct Reset {  // a new source: every vertex unvisited but the source, which is selected
    int* dist;
    double* sigma;
    double* delta;
    i64 source;
    __device__ bool operator()(u32 v) const {
        bool is_source = i64(v) == source;
        dist[v] = is_source ? 0 : -1;
        sigma[v] = is_source ? 1.0 : 0.0;
        delta[v] = 0.0;
        return is_source;
    }
};

struct Count {  // forward: claim an unvisited u for the next level; add v's paths to u on it
    int* dist;
    double* sigma;
    i64 level;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        int d = dist[u];
        bool claimed = false;
        if (d < 0) {
            d = atomicCAS(dist + u, -1, int(level));
            claimed = d == -1;
            if (claimed) d = int(level);
        }
        if (d == int(level)) atomicAdd(sigma + u, sigma[v]);
        return claimed;
    }
};

struct Dependency {  // backward, over v's out-edges: u one level deeper passes on its share of v's paths
    const int* dist;
    const double* sigma;
    double* delta;
    i64 level;
    __device__ bool wanted(u32) const { return true; }
    __device__ double operator()(u32 v, u32 u, Edge) const { return dist[u] == level + 1 ? __dmul_rn(sigma[v], (1.0 + delta[u]) / sigma[u]) : 0.0; }
    __device__ void apply(u32 v, double total) const { delta[v] += total; }
};

struct Accumulate {  // each reached vertex takes its dependency (and with endpoints, one per pair it ends)
    double* centrality;
    const int* dist;
    const double* delta;
    i64 source;
    i64 endpoints;
    i64 reached;
    __device__ void operator()(u32 v) const {
        if (dist[v] > 0)
            centrality[v] += delta[v] + double(endpoints);
        else if (i64(v) == source && endpoints)
            centrality[v] += double(reached - 1);
    }
};

INSTANTIATE(FILTER, Reset)
INSTANTIATE(ADVANCE, Count)
INSTANTIATE(GATHER, Dependency)
INSTANTIATE(COMPUTE, Accumulate)
