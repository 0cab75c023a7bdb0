// The layered SSSP sweep's functor (graphtier/algorithms/layered.py); SSSP's own for the rest.
#include "sssp.cu"

struct SweepRelax {  // a vertex improved behind the sweep (in or before the layer) starts the next sweep
    double* dist;
    i64 stop;
    u64* behind;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        double nd = dist[v] + double(e.weight());
        if (nd >= dist[u] || nd >= atomic_min_double(dist + u, nd)) return false;
        if (i64(u) < stop) atomicMin(behind, u64(u));
        return false;
    }
};

INSTANTIATE(ADVANCE, SweepRelax)
