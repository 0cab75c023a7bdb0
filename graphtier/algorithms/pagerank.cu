// PageRank's functors on the GPU (graphtier/algorithms/pagerank.py has the driver and the CPU
// functors): a gather over in-edges adds up the in-neighbours' contributions.
#include "runtime.cuh"

struct Share {
    const double* contribution;  // rank per unit of out-weight
    double* sums;
    __device__ bool wanted(u32) const { return true; }
    __device__ double operator()(u32, u32 v, Edge) const { return contribution[v]; }
    __device__ void apply(u32 u, double total) const { sums[u] += total; }
};

struct WeightedShare : Share {
    static constexpr bool edges = true;
    __device__ double operator()(u32, u32 v, Edge e) const { return contribution[v] * double(e.weight()); }
};

struct OutWeight {  // W[v]: the sum of v's out-edge weights
    double* out_weight;
    static constexpr bool edges = true;
    __device__ bool wanted(u32) const { return true; }
    __device__ double operator()(u32, u32, Edge e) const { return double(e.weight()); }
    __device__ void apply(u32 u, double total) const { out_weight[u] += total; }
};

struct CopySum {  // confluence on a coalesced store: a replica and its original both hold the sum of the two
    double* values;
    const u32* partner;
    __device__ void operator()(u32 v) const {
        double total = values[v] + values[partner[v]];
        values[v] = values[partner[v]] = total;
    }
};

INSTANTIATE(GATHER, Share)
INSTANTIATE(GATHER, WeightedShare)
INSTANTIATE(GATHER, OutWeight)
INSTANTIATE(COMPUTE, CopySum)
