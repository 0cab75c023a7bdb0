// Gunrock's advance as device templates over any format, at three granularities (Merrill's
// thread-warp-CTA, MPLG's thread, warp and block decoders): a warp decodes a list cooperatively,
// hubs are spread over every warp, and in a pull a lane scans a short list (or the first in-edges
// of a longer one) alone.
//
// A format supplies
//   template <bool Stop, class Visit> static bool for_each(g, c, v, lo, hi, visit)
//     visit(u) for every id of v's sub-list in chunk c, chunk-local positions [lo, hi), decoded
//     cooperatively by the 32 lanes of a warp (all call it, converged); with Stop it returns
//     true after the first round in which a visit returned true;
//   template <bool Stop, class Visit> static bool for_each_lane(g, c, v, lo, hi, visit)
//     the same, decoded by one lane alone (with Stop, it returns at the first true);
// and the traits lane_edges (a pull lane scans lists up to this long alone), random_access (any
// [lo, hi) inside a sub-list decodes alone), split_hubs (hubs are cut into pieces that warps share:
// edge ranges with random_access, else the format supplies
//   template <bool Stop, class Visit> static bool for_each_piece(g, c, v, piece, pieces, visit)
//     the ids of piece `piece` of `pieces` of v's sub-list in chunk c, by the warp; the pieces
//     together visit each id once) and peek_edges (a pull lane scans this many in-edges of a
// longer list before the warp takes over; needs random_access). An algorithm supplies functors
// and short kernels.
#pragma once
#include "common.cuh"

// A level's bookkeeping on the device, one row per level: the host reads frontier and edges.
struct LevelSizes {
    u64 frontier;  // vertices in the level's frontier
    u64 edges;     // their out-edges (for the direction switch)
    u64 hubs;      // frontier vertices left to advance_push_hubs
    u64 spare;
};

// With split_hubs, vertices with more out-edges than this are cut into pieces of PIECE_EDGES.
constexpr i64 HUB_EDGES = 2048, PIECE_EDGES = 1024;

// visit(u) for the out-edges (v, u) at global edge positions [lo, hi), across the chunks that
// hold them and are present, by the whole warp. Unless Format::random_access, [lo, hi) must cover
// whole per-chunk sub-lists.
template <class Format, bool Stop, class Visit>
__device__ bool for_each_edge(const Graph& g, i64 v, i64 lo, i64 hi, Visit&& visit) {
    while (lo < hi) {
        i64 c = lo / g.chunk_edges, start = c * g.chunk_edges;
        i64 end = min(hi, start + g.chunk_edges);
        if (g.present(c) && Format::template for_each<Stop>(g, c, v, lo - start, end - start, visit)) return true;
        lo = end;
    }
    return false;
}

// Whether v's edges [lo, hi) are for its lane alone: few, and in one chunk.
template <class Format>
__device__ bool lane_sized(const Graph& g, i64 lo, i64 hi) {
    return hi - lo <= Format::lane_edges && lo / g.chunk_edges == (hi - 1) / g.chunk_edges;
}

template <class Format, bool Stop, class Visit>
__device__ bool for_each_edge_lane(const Graph& g, i64 v, i64 lo, i64 hi, Visit&& visit) {
    i64 c = lo / g.chunk_edges, start = c * g.chunk_edges;
    return g.present(c) && Format::template for_each_lane<Stop>(g, c, v, lo - start, hi - start, visit);
}

template <class Visit>
struct Claim {  // visit(v, u), and a place in the next frontier for each u it claims
    const Graph& g;
    Visit& visit;
    u32* out;
    LevelSizes* next;
    u64 edges = 0;  // this lane's claimed vertices' out-edges

    __device__ bool operator()(u32 v, u32 u) {
        if (visit(v, u)) {
            append(out, &next->frontier, u);
            edges += g.degree(u);
        }
        return false;
    }
    __device__ void done() { warp_add(&next->edges, edges); }
};

// Push, first kernel: a warp per frontier vertex; hubs (with split_hubs) are queued in `hubs`
// for advance_push_hubs. (A lane per short list loses here: a lane's visits follow one another,
// each a dependent load and atomic, where a warp issues 32 at once; measured on cnr-2000 and on
// kron23's large push levels.) visit(v, u) -> bool claims u; claimed vertices are appended to
// `out` and counted, with their out-edges, in `next`.
template <class Format, class Visit>
__device__ void advance_push(const Graph& g, const u32* frontier, LevelSizes* sizes, u32* hubs, u32* out, LevelSizes* next, Visit visit) {
    Claim<Visit> claim{g, visit, out, next};
    for (i64 i = global_warp(); i < i64(sizes->frontier); i += warp_count()) {
        u32 v = frontier[i];
        i64 lo = g.indptr[v], hi = g.indptr[v + 1];
        if (Format::split_hubs && hi - lo > HUB_EDGES) {
            if (lane_id() == 0) hubs[atomicAdd(&sizes->hubs, u64(1))] = v;
        } else {
            for_each_edge<Format, false>(g, v, lo, hi, [&](u32 u) { return claim(v, u); });
        }
    }
    claim.done();
}

// Piece p of `pieces` of v's sub-list [lo, hi) in chunk c (chunk-local positions), by the warp:
// PIECE_EDGES consecutive edges where the format reads any range, else the format's own cut.
template <class Format, class Visit>
__device__ void for_each_piece(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, i64 p, i64 pieces, Visit&& visit) {
    if constexpr (Format::random_access) {
        i64 a = lo + p * PIECE_EDGES;
        Format::template for_each<false>(g, c, v, a, min(hi, a + PIECE_EDGES), visit);
    } else {
        Format::template for_each_piece<false>(g, c, v, p, pieces, visit);
    }
}

// Pieces of a hub's edges [lo, hi): one per PIECE_EDGES edges of its sub-list in each chunk.
__device__ __forceinline__ i64 hub_pieces(i64 lo, i64 hi, i64 chunk_edges) {
    i64 n = 0;
    for (i64 end; lo < hi; lo = end) {
        end = min(hi, (lo / chunk_edges + 1) * chunk_edges);
        n += (end - lo + PIECE_EDGES - 1) / PIECE_EDGES;
    }
    return n;
}

// Push, second kernel: the hubs' pieces, dealt round-robin over every warp in hub and chunk order.
// Each warp walks the hub list 32 hubs at a time (a lane per hub, a scan of their piece counts),
// so that a walk costs a few loads per 32 hubs, not per hub (kron24, top-down BFS read in place
// from host memory on an H100: zero-copy CSR 340 -> 204 ms, ef 275 -> 123 ms).
template <class Format, class Visit>
__device__ void advance_push_hubs(const Graph& g, const u32* hubs, const LevelSizes* sizes, u32* out, LevelSizes* next, Visit visit) {
    Claim<Visit> claim{g, visit, out, next};
    const i64 warps = warp_count(), me = global_warp();
    const u64 n_hubs = sizes->hubs;
    const u32 lane = lane_id();
    i64 dealt = 0;  // pieces of the hubs before this group of 32
    for (u64 h0 = 0; h0 < n_hubs; h0 += 32) {
        u32 v = 0;
        i64 lo = 0, hi = 0;
        if (h0 + lane < n_hubs) {
            v = hubs[h0 + lane];
            lo = g.indptr[v], hi = g.indptr[v + 1];
        }
        i64 mine = hub_pieces(lo, hi, g.chunk_edges), end = mine;  // end: inclusive sum over lanes
        for (u32 d = 1; d < 32; d <<= 1) {
            i64 y = __shfl_up_sync(FULL_MASK, end, d);
            if (lane >= d) end += y;
        }
        i64 total = __shfl_sync(FULL_MASK, end, 31);
        for (i64 q = ((me - dealt) % warps + warps) % warps; q < total; q += warps) {  // q: warp-uniform
            u32 owner = 0;  // the first lane whose inclusive sum passes q
            for (u32 b = 16; b; b >>= 1)
                if (__shfl_sync(FULL_MASK, end, owner + b - 1) <= q) owner += b;
            u32 hub = __shfl_sync(FULL_MASK, v, owner);
            i64 r = q - __shfl_sync(FULL_MASK, end, owner) + __shfl_sync(FULL_MASK, mine, owner);
            i64 a = __shfl_sync(FULL_MASK, lo, owner), b = __shfl_sync(FULL_MASK, hi, owner);
            for (i64 e;; a = e) {  // the chunk that holds piece r of the hub
                i64 c = a / g.chunk_edges, start = c * g.chunk_edges;
                e = min(b, start + g.chunk_edges);
                i64 pieces = (e - a + PIECE_EDGES - 1) / PIECE_EDGES;
                if (r < pieces) {
                    if (g.present(c)) for_each_piece<Format>(g, c, hub, a - start, e - start, r, pieces, [&](u32 u) { return claim(hub, u); });
                    break;
                }
                r -= pieces;
            }
        }
        dealt += total;
    }
    claim.done();
}

// Pull: every vertex u with wanted(u) scans its in-edges (g is the reverse graph) until
// parent(u, v) holds, then adopt(u, v) runs once. Warps take 32 vertices at a time and skip the
// unwanted and isolated ones together; a lane scans a short list alone, or peeks at the first
// peek_edges of a longer one, and the warp shares the scan of what is left, stopping at the first
// parent. Adopted vertices are appended to `out` as in advance_push.
template <class Format, class Wanted, class Parent, class Adopt>
__device__ void advance_pull(const Graph& g, u32* out, LevelSizes* next, Wanted wanted, Parent parent, Adopt adopt) {
    constexpr i64 peek = Format::peek_edges;
    u64 adopted_edges = 0;
    for (i64 base = global_warp() * 32; base < g.n_vertices; base += warp_count() * 32) {
        i64 m = base + lane_id();
        u32 mine = u32(m);
        bool todo = m < g.n_vertices && g.degree(m) > 0 && wanted(mine);
        bool adopted = false;
        i64 lo = 0, hi = 0;
        if (todo) {
            lo = g.indptr[mine], hi = g.indptr[mine + 1];
            i64 mine_hi = lane_sized<Format>(g, lo, hi) ? hi : lane_sized<Format>(g, lo, lo + peek) ? lo + peek : lo;
            u32 found = 0;
            auto test = [&](u32 v) {
                found = v;
                return parent(mine, v);
            };
            if (mine_hi > lo && for_each_edge_lane<Format, true>(g, mine, lo, mine_hi, test)) {
                adopt(mine, found);
                adopted = true;
            }
            todo = !adopted && mine_hi < hi;
            lo = mine_hi;
        }
        for (u32 pending = __ballot_sync(FULL_MASK, todo); pending; pending &= pending - 1) {
            int owner = __ffs(pending) - 1;
            u32 u = u32(base + owner);
            u32 found = 0;
            bool hit = false;
            bool any = for_each_edge<Format, true>(g, u, __shfl_sync(FULL_MASK, lo, owner), g.indptr[u + 1], [&](u32 v) {
                if (!hit && parent(u, v)) {
                    hit = true;
                    found = v;
                }
                return hit;
            });
            if (any) {
                int first = __ffs(__ballot_sync(FULL_MASK, hit)) - 1;
                found = __shfl_sync(FULL_MASK, found, first);
                if (lane_id() == owner) {
                    adopt(u, found);
                    adopted = true;
                }
            }
        }
        if (adopted) {
            append(out, &next->frontier, mine);
            adopted_edges += g.degree(mine);
        }
    }
    warp_add(&next->edges, adopted_edges);
}

// Pull from the heads, before advance_pull: where the tiering scheduler keeps one in-neighbour of
// every vertex on the device (heads[u]; n_vertices or more: unknown), each u with wanted(u) whose
// head passes parent(u, v) is adopted without its list being read (so advance_pull, which asks
// wanted(u) again, skips it). Adopted vertices are appended to `out` as in advance_pull.
template <class Wanted, class Parent, class Adopt>
__device__ void pull_heads(const u32* heads, const i64* indptr, i64 n_vertices, u32* out, LevelSizes* next, Wanted wanted, Parent parent, Adopt adopt) {
    u64 adopted_edges = 0;
    for (i64 base = global_warp() * 32; base < n_vertices; base += warp_count() * 32) {
        i64 m = base + lane_id();
        u32 u = u32(m);
        bool todo = m < n_vertices && wanted(u);
        u32 v = todo ? heads[m] : 0;
        if (todo && v < n_vertices && parent(u, v)) {
            adopt(u, v);
            append(out, &next->frontier, u);
            adopted_edges += indptr[m + 1] - indptr[m];
        }
    }
    warp_add(&next->edges, adopted_edges);
}

// Demand: how many edges of each chunk a level will read, so that the scheduler can bring the
// chunks it needs (or read them in place). Every chunk holding an edge of a vertex gets at least
// one, so that none is left out; after `cap` edges of a list the rest count one per chunk.
__device__ void add_demand(i64 chunk_edges, i64 lo, i64 hi, i64 cap, u64* demand) {
    while (lo < hi) {
        i64 c = lo / chunk_edges, end = min(hi, (c + 1) * chunk_edges);
        i64 e = min(end - lo, cap);
        atomicAdd(demand + c, u64(e > 0 ? e : 1));
        cap -= e;
        lo = end;
    }
}

// Push demand: exact, the frontier's out-edges per chunk.
constexpr i64 EVERY_EDGE = i64(1) << 62;
extern "C" __global__ void push_demand(const i64* indptr, i64 chunk_edges, const u32* frontier, const LevelSizes* sizes, u64* demand) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < i64(sizes->frontier); i += i64(gridDim.x) * blockDim.x)
        add_demand(chunk_edges, indptr[frontier[i]], indptr[frontier[i] + 1], EVERY_EDGE, demand);
}

// Pull demand: every in-edge of a wanted vertex may be read, but a pull stops at the first
// parent, so each list counts its first PULL_READS in-edges (a warp's first round): an estimate.
constexpr i64 PULL_READS = 32;

template <class Wanted>
__device__ void pull_demand(const i64* indptr, i64 chunk_edges, i64 n_vertices, Wanted wanted, u64* demand) {
    for (i64 u = i64(blockIdx.x) * blockDim.x + threadIdx.x; u < n_vertices; u += i64(gridDim.x) * blockDim.x)
        if (wanted(u32(u))) add_demand(chunk_edges, indptr[u], indptr[u + 1], PULL_READS, demand);
}

// A level's frontier queue as a bitmap (bits must be zero), set with atomicOr.
extern "C" __global__ void queue_to_bitmap(const u32* queue, const LevelSizes* sizes, u32* bits) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < i64(sizes->frontier); i += i64(gridDim.x) * blockDim.x)
        atomicOr(bits + (queue[i] >> 5), 1u << (queue[i] & 31));
}
