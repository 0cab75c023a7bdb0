// Greedy colouring's functors on the GPU (graphtier/algorithms/coloring.py has the driver and the
// CPU functors): tests read only what the round's start left, bits are OR-ed into 64-colour windows
// and counts decremented with atomics, so the colours do not depend on the order threads run in.
// A vertex's state is one 32-byte cell (coloring.py's CELL), so a test of a neighbour reads one
// sector of memory, not one per array.
#include "runtime.cuh"
#include "priority.cuh"

struct Cell {     // coloring.py's words: used | colour, window | pending, degree | blocker, mark
    u64 used;     // its 64-colour window's colours that higher neighbours took
    u32 colour;   // NONE: not coloured yet
    u32 window;   // the window's first colour / 64
    u32 pending;  // uncoloured higher neighbours
    u32 degree;   // out- plus in-lists, at most coloring.py's MAX_DEGREE
    u32 blocker;  // the neighbour that blocked it last; a long list's: its row of kept neighbours
    u32 mark;     // BLOCKED or MOVED within a round
};
static_assert(sizeof(Cell) == 32, "a cell is coloring.py's four 64-bit words");

constexpr u32 NONE = 0xFFFFFFFFu;  // not coloured yet; no blocker
constexpr u64 FULL = ~0ull;        // a window whose 64 colours are all taken
constexpr u32 BLOCKED = 1, MOVED = 2;  // coloring.py's marks
constexpr u32 LIMIT = 128;             // coloring.py's: the most uncoloured higher neighbours of a vertex tested
constexpr u32 KEEP_FROM = 4 * LIMIT;   // coloring.py's: a longer list is read once for them, kept in a row of LIMIT + 1 words

// Whether a comes before b: more neighbours, then a higher priority.
__device__ __forceinline__ bool higher(const Cell& a, const Cell& b, u32 ia, u32 ib, const u64* prio) {
    return a.degree > b.degree || (a.degree == b.degree && prio[ia] > prio[ib]);
}

struct CountNeighbours {  // a fresh cell: uncoloured, its degree counted
    const i64* out_ptr;
    const i64* in_ptr;
    i64 same;  // in_ptr is out_ptr (a symmetric graph's one list)
    Cell* cell;
    __device__ void operator()(u32 v) const {
        cell[v] = Cell{0, NONE, 0, 0, u32(min(list_entries(v, out_ptr, in_ptr, same), i64(0xFFFFFFFF))), NONE, 0};  // coloring.py's MAX_DEGREE
    }
};

// Whether uncoloured u may end with colour c: not below its smallest free colour, not taken by a
// higher neighbour, not beyond its (pending + 1)-th free one; beyond its window, unknown.
__device__ __forceinline__ bool may_take(const Cell& u, i64 c) {
    i64 base = i64(u.window) * 64;
    u64 free = ~u.used;
    if (free == 0) return c >= base + 64;
    if (c < base + __ffsll(free) - 1 || (c < base + 64 && (u.used >> (c - base)) & 1)) return false;
    if (u.pending >= u32(__popcll(free))) return true;
    for (u32 i = 0; i < u.pending; i++) free &= free - 1;  // the free colours its uncoloured higher neighbours may take
    return c <= base + __ffsll(free) - 1;
}

// Uncoloured, not yet found blocked, its window not full, with uncoloured higher neighbours but no more than LIMIT.
__device__ __forceinline__ bool testable(const Cell& v) { return v.colour == NONE && v.mark != BLOCKED && v.used != FULL && v.pending > 0 && v.pending <= LIMIT; }

// More than KEEP_FROM neighbours: its uncoloured higher neighbours kept in a row once it is tested, whose index its blocker holds (NONE before).
__device__ __forceinline__ bool long_list(const Cell& v) { return v.degree > KEEP_FROM; }

__device__ __forceinline__ i64 first_free(const Cell& v) { return i64(v.window) * 64 + __ffsll(~v.used) - 1; }

struct Keep {  // a tested vertex with a long list, the first time: a row for its uncoloured higher neighbours (Collect fills it)
    Cell* cell;
    u32* kept;
    u32* taken;
    i64 rows;
    __device__ bool operator()(u32 v) const {
        Cell& c = cell[v];
        if (!long_list(c) || c.blocker != NONE || !testable(c)) return false;
        u32 r = atomicAdd(taken, 1u);
        if (r >= rows) return false;
        c.blocker = r;
        kept[u64(r) * (LIMIT + 1)] = 0;
        return true;
    }
};

struct Collect {  // from a vertex given a row: each uncoloured higher neighbour into it, after the count (pending of them, at most LIMIT)
    const u64* prio;
    const Cell* cell;
    u32* kept;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        const Cell& cu = cell[u];
        if (u == v || cu.colour != NONE || !higher(cu, cell[v], u, v, prio)) return false;
        u32* r = kept + u64(cell[v].blocker) * (LIMIT + 1);
        u32 k = atomicAdd(r, 1u);
        if (k < LIMIT) r[1 + k] = u;
        return false;
    }
};

// A tested vertex blocked without its list being read: by the neighbour that blocked it last, if
// uncoloured and still able to take v's smallest free colour; a long list's, by the first of its
// row that is (moved to the front, to be tried first next time; those coloured since dropped).
struct Recheck {
    Cell* cell;
    u32* kept;
    __device__ bool operator()(u32 v) const {
        Cell& c = cell[v];
        if (!testable(c) || c.blocker == NONE) return false;
        i64 colour = first_free(c);
        if (!long_list(c)) {
            if (cell[c.blocker].colour == NONE && may_take(cell[c.blocker], colour)) c.mark = BLOCKED;
            return false;
        }
        u32* r = kept + u64(c.blocker) * (LIMIT + 1);
        u32 k = min(r[0], LIMIT);
        for (u32 j = 0; j < k;) {
            u32 u = r[1 + j];
            if (cell[u].colour != NONE) {
                r[1 + j] = r[k--];
            } else if (may_take(cell[u], colour)) {
                r[1 + j] = r[1];
                r[1] = u;
                c.mark = BLOCKED;
                break;
            } else {
                j++;
            }
        }
        r[0] = k;
        return false;
    }
};

struct Block {  // pull, where v's list is not kept: the first uncoloured higher neighbour that may take v's smallest free colour
    const u64* prio;
    Cell* cell;
    __device__ bool wanted(u32 v) const { return testable(cell[v]) && !(long_list(cell[v]) && cell[v].blocker != NONE); }
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        const Cell& cu = cell[u];
        if (u == v || cu.colour != NONE || !higher(cu, cell[v], u, v, prio)) return false;
        return may_take(cu, first_free(cell[v]));
    }
    __device__ void adopt(u32 v, u32 u) const {  // remembered (a long list's blocker names a row)
        cell[v].mark = BLOCKED;
        if (!long_list(cell[v])) cell[v].blocker = u;
    }
};

struct Pick {  // not blocked: the smallest free colour; a full window moves on instead (v reads again)
    Cell* cell;
    i64 limit;  // more uncoloured higher neighbours block untested (0: no tests)
    __device__ bool operator()(u32 v) const {
        Cell& c = cell[v];
        if (c.colour != NONE) return false;
        if (c.used == FULL) {
            c.window += 1;
            c.used = 0;
            c.mark = MOVED;
            return false;
        }
        bool blocked = c.mark == BLOCKED || c.pending > u32(limit);
        c.mark = 0;
        if (blocked) return false;
        c.colour = u32(first_free(c));
        return true;
    }
};

struct WindowMoved {
    const Cell* cell;
    __device__ bool operator()(u32 v) const { return cell[v].mark == MOVED; }
};

struct Touched {  // pushed to this round and still uncoloured, unless queued already for a moved window
    const Cell* cell;
    __device__ bool operator()(u32 v) const { return cell[v].colour == NONE && cell[v].mark != MOVED; }
};

struct Reread {  // u's window moved: its higher neighbours' colours in it
    const u64* prio;
    Cell* cell;
    __device__ bool operator()(u32 u, u32 v, Edge) const {
        u32 c = cell[v].colour;
        if (v != u && c != NONE && higher(cell[v], cell[u], v, u, prio) && c / 64 == cell[u].window) atomicOr(&cell[u].used, 1ull << (c % 64));
        return false;
    }
};

struct Push {  // along an edge from v to a lower u: delta to u's uncoloured higher neighbours (+1 first, -1 once v is coloured), v's colour; queues u then
    const u64* prio;
    Cell* cell;
    i64 delta;
    __device__ bool operator()(u32 v, u32 u, Edge) const {
        const Cell& cv = cell[v];
        Cell& cu = cell[u];
        u32 c = cv.colour;
        if (u == v || !higher(cv, cu, v, u, prio)) return false;
        if (c != NONE && c / 64 == cu.window) atomicOr(&cu.used, 1ull << (c % 64));
        atomicAdd(&cu.pending, u32(delta));
        return delta < 0 && cu.colour == NONE;
    }
};

INSTANTIATE(COMPUTE, Priority)
INSTANTIATE(COMPUTE, CountNeighbours)
INSTANTIATE(ADVANCE, Push)
INSTANTIATE(FILTER, Keep)
INSTANTIATE(ADVANCE, Collect)
INSTANTIATE(FILTER, Recheck)
INSTANTIATE(PULL, Block)
INSTANTIATE(FILTER, Pick)
INSTANTIATE(FILTER, WindowMoved)
INSTANTIATE(ADVANCE, Reread)
INSTANTIATE(FILTER, Touched)
