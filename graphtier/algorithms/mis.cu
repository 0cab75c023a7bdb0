// Maximal independent set's functors on the GPU (graphtier/algorithms/mis.py has the driver and
// the CPU functors). Statuses are bytes that change only from undecided (or waiting) to a final
// value, out written by any neighbour that joined; others read them while they change, and any
// value read is one the vertex had, so a decision is never wrong, at worst a round late.
#include "runtime.cuh"
#include "priority.cuh"

typedef unsigned char u8;

constexpr u8 UNDECIDED = 0, IN = 1, OUT = 2, WAITING = 3;  // mis.py's

struct Settle {  // pull: the first neighbour in the set, or undecided of higher priority
    u8* status;
    const u64* prio;
    __device__ bool wanted(u32 u) const { return status[u] == UNDECIDED; }
    __device__ bool operator()(u32 u, u32 v, Edge) const {
        u8 s = reinterpret_cast<volatile const u8*>(status)[v];
        return v != u && (s == IN || (s != OUT && prio[v] > prio[u]));
    }
    __device__ void adopt(u32 u, u32 v) const { status[u] = reinterpret_cast<volatile const u8*>(status)[v] == IN ? OUT : WAITING; }
};

struct Join {  // an undecided vertex that met no reason to wait joins the set; one that waits is undecided again
    u8* status;
    __device__ bool operator()(u32 v) const {
        u8 s = status[v];
        if (s == WAITING) status[v] = UNDECIDED;
        if (s != UNDECIDED) return false;
        status[v] = IN;
        return true;
    }
};

struct Exclude {  // v joined: its neighbours are out
    u8* status;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (u != v) status[u] = OUT;
        return false;
    }
};

struct Still {
    const u8* status;
    __device__ bool operator()(u32 v) const { return status[v] == UNDECIDED; }
};

INSTANTIATE(COMPUTE, Priority)
INSTANTIATE(PULL, Settle)
INSTANTIATE(FILTER, Join)
INSTANTIATE(ADVANCE, Exclude)
INSTANTIATE(FILTER, Still)
