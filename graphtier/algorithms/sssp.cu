// SSSP's functors on the GPU (graphtier/algorithms/sssp.py has the driver and the CPU functors).
// Distances are doubles >= 0 (or inf), so their bits order as unsigned integers: atomicMin on them.
#include "runtime.cuh"

__device__ __forceinline__ double infinity() { return __longlong_as_double(0x7ff0000000000000LL); }

__device__ __forceinline__ double atomic_min_double(double* at, double x) {
    return __longlong_as_double(i64(atomicMin(reinterpret_cast<u64*>(at), u64(__double_as_longlong(x)))));
}

struct Relax {  // u joins the near pile when its new distance is below the threshold, else the far queue
    double* dist;
    u32* far;
    LevelSizes* far_size;
    u32* far_marks;
    double threshold;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        double nd = dist[v] + double(e.weight());
        if (nd >= dist[u] || nd >= atomic_min_double(dist + u, nd)) return false;
        if (nd < threshold) {  // relaxed now: a far copy of u, if any, is dropped (no second relaxation)
            far_marks[u] = 0;
            return true;
        }
        if (atomicExch(far_marks + u, 1u) == 0u) append(far, &far_size->frontier, u);
        return false;
    }
};

struct Near {  // far vertices (still marked) within the threshold become the frontier
    const double* dist;
    u32* far_marks;
    double threshold;
    __device__ bool operator()(u32 v) const {
        if (far_marks[v] == 0 || dist[v] >= threshold) return false;
        far_marks[v] = 0;
        return true;
    }
};

struct StillFar {
    const u32* far_marks;
    __device__ bool operator()(u32 v) const { return far_marks[v] != 0; }
};

struct Tight {  // parents: the smallest v with dist[v] + w == dist[u] over positive w
    const double* dist;
    i64* parent;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        float w = e.weight();
        if (w > 0 && dist[u] < infinity() && dist[v] + double(w) == dist[u]) atomicMin(reinterpret_cast<u64*>(parent + u), u64(v));
        return false;
    }
};

struct Parent {  // pull: a reached vertex's first tight in-edge of positive weight (the smallest such v)
    const double* dist;
    i64* parent;
    i64 source;
    static constexpr bool edges = true;
    __device__ bool wanted(u32 u) const { return dist[u] < infinity() && i64(u) != source && parent[u] == 0x7fffffffffffffffLL; }
    __device__ bool operator()(u32 u, u32 v, Edge e) const {
        float w = e.weight();
        return w > 0 && dist[v] + double(w) == dist[u];
    }
    __device__ void adopt(u32 u, u32 v) const { parent[u] = v; }
};

struct ZeroTight {  // through zero-weight edges, from vertices that have a parent already
    const double* dist;
    i64* parent;
    i64 source;
    static constexpr bool edges = true;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        if (e.weight() == 0 && dist[u] < infinity() && dist[v] == dist[u] && parent[u] == NO_PARENT && (i64(v) == source || parent[v] != NO_PARENT))
            atomicMin(reinterpret_cast<u64*>(parent + u), u64(v));
        return false;
    }
    static constexpr i64 NO_PARENT = 0x7fffffffffffffffLL;
};

struct Start {
    double* dist;
    i64* parent;
    u32* far_marks;
    i64 source;
    __device__ void operator()(u32 v) const {
        dist[v] = v == source ? 0.0 : infinity();
        parent[v] = 0x7fffffffffffffffLL;
        far_marks[v] = 0;
    }
};

struct CopyDist {  // confluence on a coalesced store: a copy takes its partner's distance where less
    double* dist;
    const u32* partner;
    __device__ bool operator()(u32 v) const {
        double d = dist[partner[v]];
        if (d >= dist[v]) return false;
        dist[v] = d;
        return true;
    }
};

struct CopyParent {  // parents: a copy without one whose distance is its partner's takes the partner's
    const double* dist;
    i64* parent;
    const u32* partner;
    i64 source;
    __device__ bool operator()(u32 v) const {
        u32 p = partner[v];
        if (parent[v] == ZeroTight::NO_PARENT && dist[v] < infinity() && dist[v] == dist[p])
            parent[v] = i64(p) == source ? i64(p) : parent[p];
        return false;
    }
};

INSTANTIATE(ADVANCE, Relax)
INSTANTIATE(ROUNDS, Relax)
INSTANTIATE(FILTER, Near)
INSTANTIATE(FILTER, StillFar)
INSTANTIATE(ADVANCE, Tight)
INSTANTIATE(PULL, Parent)
INSTANTIATE(ADVANCE, ZeroTight)
INSTANTIATE(COMPUTE, Start)
INSTANTIATE(FILTER, CopyDist)
INSTANTIATE(FILTER, CopyParent)
