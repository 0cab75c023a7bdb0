// Boruvka's functors on the GPU (graphtier/algorithms/mst.py has the driver, the CPU functors and
// the order of edges). Every parent pointer leads to a smaller vertex, as in cc.cu.
#include "runtime.cuh"
#include "union_find.cuh"

typedef unsigned char u8;

constexpr u64 NO_EDGE = ~0ull;
constexpr u32 NONE = 0xFFFFFFFFu;  // no component (mst.py's NONE)

// w's bits, the sign flipped (negative numbers: every bit), so that unsigned order is the numbers'
// order; -0 is 0 (mst.py's weight_key).
__device__ __forceinline__ u64 weight_key(float w) {
    if (w == 0.0f) return 0x80000000ull;
    u32 bits = __float_as_uint(w);
    return bits & 0x80000000u ? u64(~bits) : u64(bits | 0x80000000u);
}

struct Ranks {
    const u32* rank;  // each vertex's place in the input's order, where the store reordered them
    i64 ranked;
    __device__ u64 of(u32 v) const { return ranked ? rank[v] : v; }
};

constexpr i64 LEAST = 0, TIES = 1, ALONE = 2;  // mst.py's passes

// The passes of a round: over every edge, each component's least (weight key, smaller endpoint)
// over its outgoing edges, v marked as having one (LEAST); then, over the smaller endpoints'
// lists, among the edges equal to it, the least (larger endpoint, outside endpoint), for v's
// component and u's (TIES). The first round's one pass (ALONE): each vertex's least (weight key,
// u's rank). Unit: every edge weighs 1, no weight read.
template <bool Weighted>
struct ChooseOf {
    const u32* parent;
    u64* best;
    u64* other;
    Ranks r;
    i64 step;
    u8* outgoing;
    static constexpr bool edges = Weighted;
    __device__ bool operator()(u32 v, u32 u, Edge e) const {
        u64 rv = r.of(v), ru = r.of(u);
        if (step == TIES && rv > ru) return false;  // the second pass takes each edge from its smaller endpoint's list alone
        u32 a = parent[v], b = parent[u];
        if (a == b) return false;
        u64 key = weight_key(Weighted ? e.weight() : 1.0f) << 32 | (step == ALONE ? ru : min(rv, ru));
        if (step != TIES) {
            if (key < best[a]) atomicMin(best + a, key);
            if (!outgoing[v]) outgoing[v] = 1;
            return false;
        }
        u64 larger = ru << 32;  // rv < ru here
        if (key == best[a] && (larger | u) < other[a]) atomicMin(other + a, larger | u);
        if (key == best[b] && (larger | v) < other[b]) atomicMin(other + b, larger | v);
        return false;
    }
};
struct Choose : ChooseOf<true> {};
struct ChooseUnit : ChooseOf<false> {};

struct SplitAlone {  // the first round's least edge of v, (weight key, u's rank), as the two passes write it
    u64* best;
    u64* other;
    Ranks r;
    Ranks vertex;  // the vertex of each rank
    __device__ void operator()(u32 v) const {
        if (best[v] == NO_EDGE) return;
        u64 rv = r.of(v), ru = best[v] & 0xFFFFFFFFull;
        best[v] = (best[v] >> 32) << 32 | min(rv, ru);
        other[v] = max(rv, ru) << 32 | vertex.of(u32(ru));
    }
};

struct MarkEnd {  // a component with an outgoing edge marks the smaller endpoint of its least one
    const u64* best;
    Ranks vertex;  // the vertex of each rank
    u8* marked;
    __device__ void operator()(u32 v) const {
        if (best[v] != NO_EDGE) marked[vertex.of(u32(best[v]))] = 1;
    }
};

struct TakeMark {
    u8* marked;
    __device__ bool operator()(u32 v) const {
        if (!marked[v]) return false;
        marked[v] = 0;
        return true;
    }
};

struct Target {  // the component each root's least edge leads to
    const u64* best;
    const u64* other;
    const u32* parent;
    u32* target;
    __device__ void operator()(u32 v) const { target[v] = best[v] == NO_EDGE ? NONE : parent[u32(other[v])]; }
};

// Records v's least edge (once for a pair of components that chose the same edge) and hooks the
// larger root under the smaller (union_find.cuh's hook); the root that stops being one
// keeps the edge. The chosen edges form no cycle, so exactly one swap succeeds for each.
struct Merge {
    u32* parent;
    const u32* target;
    const u64* best;
    const u64* other;
    u64* forest_key;
    u32* forest_hi;
    __device__ bool operator()(u32 v) const {
        u32 b = target[v];
        if (b == NONE || (target[b] == v && b < v)) return false;
        u32 y = hook(parent, v, b);
        if (y == NO_ROOT) return false;
        forest_key[y] = best[v];
        forest_hi[y] = u32(other[v] >> 32);
        return true;
    }
};

INSTANTIATE(ADVANCE, Choose)
INSTANTIATE(ADVANCE, ChooseUnit)
INSTANTIATE(COMPUTE, SplitAlone)
INSTANTIATE(COMPUTE, MarkEnd)
INSTANTIATE(FILTER, TakeMark)
INSTANTIATE(COMPUTE, Target)
INSTANTIATE(FILTER, Merge)
INSTANTIATE(COMPUTE, Init)
INSTANTIATE(COMPUTE, Compress)
