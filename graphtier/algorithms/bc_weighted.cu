// Weighted betweenness centrality's functors on the GPU (graphtier/algorithms/bc_weighted.py has
// the driver and the CPU functors); its distances are SSSP's, whose functors it includes. Path
// counts are float64 integers, exact up to 2**53 whatever order the atomic adds come in.
#include "sssp.cu"

__device__ __forceinline__ bool tight(u32 v, u32 u, float w, const double* dist) { return u != v && dist[v] + double(w) == dist[u]; }

struct Tighten {  // counts u's DAG in-edges
    const double* dist;
    u32* pending;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        if (dist[v] < infinity() && tight(v, u, e.weight(), dist)) atomicAdd(pending + u, 1u);
        return false;
    }
};

struct Begin {  // a source's forward: one path to itself, none elsewhere, no dependency
    double* sigma;
    double* delta;
    u32* pending;
    i64 source;
    __device__ bool operator()(u32 v) const {
        sigma[v] = v == source ? 1.0 : 0.0;
        delta[v] = 0.0;
        pending[v] = 0;
        return v == source;
    }
};

struct Flow {  // v has all its paths: it adds them to its DAG successor u, queued once all u's DAG in-edges have
    const double* dist;
    double* sigma;
    u32* pending;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        if (!tight(v, u, e.weight(), dist)) return false;
        atomicAdd(sigma + u, sigma[v]);
        return atomicSub(pending + u, 1u) == 1u;
    }
};

struct Depend {  // backward, over v's DAG out-edges: each successor's share, times v's paths
    const double* dist;
    const double* sigma;
    double* delta;
    static constexpr bool edges = true;
    __device__ bool wanted(u32) const { return true; }
    __device__ double operator()(u32 v, u32 u, Edge e) const { return tight(v, u, e.weight(), dist) ? (1.0 + delta[u]) / sigma[u] : 0.0; }
    __device__ void apply(u32 v, double total) const { delta[v] += __dmul_rn(sigma[v], total); }
};

struct Accumulate {  // each vertex the source reached takes its dependency (endpoints: one more; the source one per vertex reached)
    double* centrality;
    const double* dist;
    const double* delta;
    i64 source;
    double endpoints;
    i64 reached;
    __device__ void operator()(u32 v) const {
        if (v == source)
            centrality[v] += endpoints * double(reached);
        else if (dist[v] < infinity())
            centrality[v] += delta[v] + endpoints;
    }
};

INSTANTIATE(ADVANCE, Tighten)
INSTANTIATE(FILTER, Begin)
INSTANTIATE(ADVANCE, Flow)
INSTANTIATE(GATHER, Depend)
INSTANTIATE(COMPUTE, Accumulate)
