// The layered SSSP sweep's functor (graphtier/algorithms/layered.py); SSSP's own (near-far) for the rest.
#include "sssp.cu"

// The end of v's layer: the first bound past v (layers[0 .. bounds - 1] rise from 0).
__device__ __forceinline__ i64 layer_end(const i64* layers, i64 bounds, u32 v) {
    i64 lo = 0, hi = bounds - 1;  // layers[lo] <= v < layers[hi]
    while (hi - lo > 1) {
        i64 mid = (lo + hi) / 2;
        (layers[mid] <= i64(v) ? lo : hi) = mid;
    }
    return layers[hi];
}

// A vertex improved in or before v's layer has had its out-edges relaxed with an older distance:
// it joins the far queue (once), where near-far goes on from after the sweep.
struct SweepRelax {
    double* dist;
    const i64* layers;
    i64 bounds;
    u32* far;
    LevelSizes* far_size;
    u32* far_marks;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        double nd = dist[v] + double(e.weight());
        if (nd >= dist[u] || nd >= atomic_min_double(dist + u, nd)) return false;
        if (i64(u) < layer_end(layers, bounds, v) && atomicExch(far_marks + u, 1u) == 0u) append(far, &far_size->frontier, u);
        return false;
    }
};

INSTANTIATE(ADVANCE, SweepRelax)
INSTANTIATE(SPANS, SweepRelax)
