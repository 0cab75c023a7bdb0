// Greedy colouring's functors on the GPU (graphtier/algorithms/coloring.py has the driver and the
// CPU functors): bits OR-ed into 64-colour windows and counts decremented with atomics, so the
// colours do not depend on the order threads run in.
#include "runtime.cuh"
#include "priority.cuh"

constexpr u32 NONE = 0xFFFFFFFFu;  // not coloured yet
constexpr u64 FULL = ~0ull;        // a window whose 64 colours are all taken

// Whether a comes before b: more neighbours (out- plus in-lists), then a higher priority.
__device__ __forceinline__ bool higher(u32 a, u32 b, const u64* prio, const i64* out_ptr, const i64* in_ptr) {
    i64 da = out_ptr[a + 1] - out_ptr[a] + in_ptr[a + 1] - in_ptr[a];
    i64 db = out_ptr[b + 1] - out_ptr[b] + in_ptr[b + 1] - in_ptr[b];
    return da > db || (da == db && prio[a] > prio[b]);
}

struct Ready {
    const u32* pending;
    __device__ bool operator()(u32 v) const { return pending[v] == 0; }
};

struct Pick {  // the smallest free colour of v's window, or (full) the next window: v reads again
    u32* colors;
    u64* used;
    u32* window;
    __device__ bool operator()(u32 v) const {
        if (used[v] == FULL) {
            window[v] += 1;
            used[v] = 0;
            return true;
        }
        colors[v] = window[v] * 64 + u32(__ffsll(~used[v]) - 1);
        return false;
    }
};

struct Reread {  // u's window moved: its higher neighbours' colours in it
    const u64* prio;
    const i64* out_ptr;
    const i64* in_ptr;
    const u32* colors;
    u64* used;
    const u32* window;
    __device__ bool operator()(u32 u, u32 v, Edge) const {
        if (v != u && higher(v, u, prio, out_ptr, in_ptr) && colors[v] / 64 == window[u]) atomicOr(used + u, 1ull << (colors[v] % 64));
        return false;
    }
};

struct Push {  // along an edge from v to a lower u: delta to what u waits for (+1 first, -1 once v is coloured), v's colour
    const u64* prio;
    const i64* out_ptr;
    const i64* in_ptr;
    const u32* colors;
    u64* used;
    u32* pending;
    i64 delta;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        u32 c = colors[v];
        if (u == v || (delta < 0 && c == NONE) || !higher(v, u, prio, out_ptr, in_ptr)) return false;
        if (c < 64) atomicOr(used + u, 1ull << c);
        return atomicAdd(pending + u, u32(delta)) + u32(delta) == 0 && delta < 0;
    }
};

INSTANTIATE(COMPUTE, Priority)
INSTANTIATE(ADVANCE, Push)
INSTANTIATE(FILTER, Ready)
INSTANTIATE(FILTER, Pick)
INSTANTIATE(ADVANCE, Reread)
