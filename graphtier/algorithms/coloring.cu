// Greedy colouring's functors on the GPU (graphtier/algorithms/coloring.py has the driver and the
// CPU functors): tests read only what the round's start left, bits are OR-ed into 64-colour windows
// and counts decremented with atomics, so the colours do not depend on the order threads run in.
#include "runtime.cuh"
#include "priority.cuh"

typedef unsigned char u8;

constexpr u32 NONE = 0xFFFFFFFFu;     // not coloured yet
constexpr u64 FULL = ~0ull;           // a window whose 64 colours are all taken
constexpr u8 BLOCKED = 1, MOVED = 2;  // coloring.py's marks
constexpr u32 LIMIT = 32;             // coloring.py's: the most uncoloured higher neighbours of a vertex tested

// Whether a comes before b: more neighbours (out- plus in-lists), then a higher priority.
__device__ __forceinline__ bool higher(u32 a, u32 b, const u64* prio, const u32* degree) {
    return degree[a] > degree[b] || (degree[a] == degree[b] && prio[a] > prio[b]);
}

struct CountNeighbours {
    const i64* out_ptr;
    const i64* in_ptr;
    u32* degree;
    __device__ void operator()(u32 v) const { degree[v] = u32(min(out_ptr[v + 1] - out_ptr[v] + in_ptr[v + 1] - in_ptr[v], i64(0xFFFFFFFF))); }  // coloring.py's MAX_DEGREE
};

// Whether uncoloured u may end with colour c: not below its smallest free colour, not taken by a
// higher neighbour, not beyond its (pending + 1)-th free one; beyond its window, unknown.
__device__ __forceinline__ bool may_take(u32 u, i64 c, const u64* used, const u32* window, const u32* pending) {
    i64 base = i64(window[u]) * 64;
    u64 free = ~used[u];
    if (free == 0) return c >= base + 64;
    if (c < base + __ffsll(free) - 1 || (c < base + 64 && (used[u] >> (c - base)) & 1)) return false;
    if (pending[u] >= u32(__popcll(free))) return true;
    for (u32 i = 0; i < pending[u]; i++) free &= free - 1;  // the free colours its uncoloured higher neighbours may take
    return c <= base + __ffsll(free) - 1;
}

// Uncoloured, not yet found blocked, its window not full, with uncoloured higher neighbours but no more than LIMIT.
__device__ __forceinline__ bool testable(u32 v, const u32* colors, const u64* used, const u32* pending, const u8* mark) {
    return colors[v] == NONE && mark[v] != BLOCKED && used[v] != FULL && pending[v] > 0 && pending[v] <= LIMIT;
}

__device__ __forceinline__ i64 first_free(u32 v, const u64* used, const u32* window) { return i64(window[v]) * 64 + __ffsll(~used[v]) - 1; }

struct StillBlocked {  // v's blocker of an earlier round, uncoloured and still able to take v's colour, blocks it unread
    const u32* colors;
    const u64* used;
    const u32* window;
    const u32* pending;
    u8* mark;
    const u32* blocker;
    __device__ bool operator()(u32 v) const {
        u32 u = blocker[v];
        if (testable(v, colors, used, pending, mark) && u != NONE && colors[u] == NONE && may_take(u, first_free(v, used, window), used, window, pending)) mark[v] = BLOCKED;
        return false;
    }
};

struct Block {  // pull: the first uncoloured higher neighbour that may take v's smallest free colour
    const u64* prio;
    const u32* degree;
    const u32* colors;
    const u64* used;
    const u32* window;
    const u32* pending;
    u8* mark;
    u32* blocker;
    __device__ bool wanted(u32 v) const { return testable(v, colors, used, pending, mark); }
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        if (u == v || colors[u] != NONE || !higher(u, v, prio, degree)) return false;
        return may_take(u, first_free(v, used, window), used, window, pending);
    }
    __device__ void adopt(u32 v, u32 u) const {
        mark[v] = BLOCKED;
        blocker[v] = u;
    }
};

struct Pick {  // not blocked: the smallest free colour; a full window moves on instead (v reads again)
    u32* colors;
    u64* used;
    u32* window;
    u8* mark;
    const u32* pending;
    i64 limit;  // more uncoloured higher neighbours block untested (0: no tests)
    __device__ bool operator()(u32 v) const {
        if (colors[v] != NONE) return false;
        if (used[v] == FULL) {
            window[v] += 1;
            used[v] = 0;
            mark[v] = MOVED;
            return false;
        }
        bool blocked = mark[v] == BLOCKED || pending[v] > u32(limit);
        mark[v] = 0;
        if (blocked) return false;
        colors[v] = u32(first_free(v, used, window));
        return true;
    }
};

struct WindowMoved {
    const u8* mark;
    __device__ bool operator()(u32 v) const { return mark[v] == MOVED; }
};

struct Touched {  // pushed to this round and still uncoloured, unless queued already for a moved window
    const u32* colors;
    const u8* mark;
    __device__ bool operator()(u32 v) const { return colors[v] == NONE && mark[v] != MOVED; }
};

struct Reread {  // u's window moved: its higher neighbours' colours in it
    const u64* prio;
    const u32* degree;
    const u32* colors;
    u64* used;
    const u32* window;
    __device__ bool operator()(u32 u, u32 v, Edge) const {
        u32 c = colors[v];
        if (v != u && c != NONE && higher(v, u, prio, degree) && c / 64 == window[u]) atomicOr(used + u, 1ull << (c % 64));
        return false;
    }
};

struct Push {  // along an edge from v to a lower u: delta to u's uncoloured higher neighbours (+1 first, -1 once v is coloured), v's colour; queues u then
    const u64* prio;
    const u32* degree;
    const u32* colors;
    u64* used;
    const u32* window;
    u32* pending;
    i64 delta;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        u32 c = colors[v];
        if (u == v || !higher(v, u, prio, degree)) return false;
        if (c != NONE && c / 64 == window[u]) atomicOr(used + u, 1ull << (c % 64));
        atomicAdd(pending + u, u32(delta));
        return delta < 0 && colors[u] == NONE;
    }
};

INSTANTIATE(COMPUTE, Priority)
INSTANTIATE(COMPUTE, CountNeighbours)
INSTANTIATE(ADVANCE, Push)
INSTANTIATE(FILTER, StillBlocked)
INSTANTIATE(PULL, Block)
INSTANTIATE(FILTER, Pick)
INSTANTIATE(FILTER, WindowMoved)
INSTANTIATE(ADVANCE, Reread)
INSTANTIATE(FILTER, Touched)
