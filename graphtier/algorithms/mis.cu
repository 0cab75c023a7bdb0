// Maximal independent set's functors on the GPU (graphtier/algorithms/mis.py has the driver and
// the CPU functors). A vertex's key (rank and wait bit while undecided, else OUT or IN) is the one
// word its neighbours read, and only the vertex writes it: from undecided to a final value, or in
// its wait bit, which no test reads. Any value read is one the vertex had, so a decision is never
// wrong, at worst a round late.
#include "runtime.cuh"
#include "priority.cuh"

constexpr u32 OUT = 0, IN = 0xFFFFFFFFu, WAITS = 1;  // mis.py's
constexpr u32 DEGREE_BITS = 12, PRIORITY_BITS = 19, MAX_DEGREE = (1u << DEGREE_BITS) - 2;

__device__ __forceinline__ bool decided(u32 k) { return k == OUT || k == IN; }

struct Rank {  // an undecided key: (MAX_DEGREE + 1 - degree) above the priority's top bits; IN without edges
    const i64* out_ptr;
    const i64* in_ptr;
    i64 same;  // in_ptr is out_ptr (a symmetric graph's one list)
    const u64* prio;
    u32* key;
    __device__ void operator()(u32 v) const {
        i64 degree = list_entries(v, out_ptr, in_ptr, same);
        u32 high = MAX_DEGREE + 1 - u32(min(degree, i64(MAX_DEGREE)));
        key[v] = degree == 0 ? IN : ((high << PRIORITY_BITS) | u32(prio[v] >> (64 - PRIORITY_BITS))) << WAITS;
    }
};

struct Settle {  // pull: the first neighbour in the set, or undecided of higher rank
    u32* key;
    const u64* prio;
    __device__ bool wanted(u32 u) const { return key[u] != OUT && !(key[u] & WAITS); }  // undecided, not yet found to wait (IN has the bit)
    __device__ bool operator()(u32 u, u32 v, Edge) const {
        u32 k = reinterpret_cast<volatile const u32*>(key)[v];
        if (v == u || k == OUT) return false;
        u32 kv = k >> WAITS, ku = key[u] >> WAITS;
        return k == IN || kv > ku || (kv == ku && prio[v] > prio[u]);
    }
    __device__ void adopt(u32 u, u32 v) const { key[u] = reinterpret_cast<volatile const u32*>(key)[v] == IN ? OUT : key[u] | WAITS; }
};

struct Join {  // an undecided vertex that met no reason to wait joins the set; one that waits stops waiting
    u32* key;
    __device__ bool operator()(u32 v) const {
        u32 k = key[v];
        if (decided(k)) return false;
        key[v] = k & WAITS ? k ^ WAITS : IN;
        return !(k & WAITS);
    }
};

struct ShutOut {  // pull: a neighbour in the set puts u out
    u32* key;
    __device__ bool wanted(u32 u) const { return !decided(key[u]); }
    __device__ bool operator()(u32, u32 v, Edge) const { return key[v] == IN; }
    __device__ void adopt(u32 u, u32) const { key[u] = OUT; }
};

struct Still {
    const u32* key;
    __device__ bool operator()(u32 v) const { return !decided(key[v]); }
};

INSTANTIATE(COMPUTE, Priority)
INSTANTIATE(COMPUTE, Rank)
INSTANTIATE(PULL, Settle)
INSTANTIATE(FILTER, Join)
INSTANTIATE(PULL, ShutOut)
INSTANTIATE(FILTER, Still)
