// Gunrock's operators as device templates over any format, and the kernels that apply an
// algorithm's functors with them. advance works at three granularities (Merrill's
// thread-warp-CTA, MPLG's thread, warp and block decoders): a warp decodes a list cooperatively,
// hubs are spread over every warp, and in a pull a lane scans a short list (or the first
// in-edges of a longer one) alone.
//
// A format supplies
//   template <bool Stop, bool Positions, class Visit> static bool for_each(g, c, v, lo, hi, visit)
//     visit(u, j) for every id u of v's sub-list in chunk c, chunk-local positions [lo, hi), j the
//     id's position (exact for every format with Positions; cgr gives 0 without), decoded
//     cooperatively by the 32 lanes of a warp (all call it, converged); with Stop it returns true
//     after the first round in which a visit returned true;
//   template <bool Stop, bool Positions, class Visit> static bool for_each_lane(g, c, v, lo, hi, visit)
//     the same, decoded by one lane alone (with Stop, it returns at the first true);
//   optionally, template <bool Positions, class Visit> static void for_each_batch(g, c, v, lo, hi, visit)
//     visit(u, j, in) by every lane, converged, for each batch of 32 ids in list order (in: the
//     lane holds one), so a warp can pass each batch's ids around (gather by lanes);
// and the traits lane_edges (a pull lane scans lists up to this long alone), random_access (any
// [lo, hi) inside a sub-list decodes alone), split_hubs (hubs are cut into pieces that warps share:
// edge ranges with random_access, else the format supplies
//   template <bool Stop, class Visit> static bool for_each_piece(g, c, v, piece, pieces, visit)
//     the ids of piece `piece` of `pieces` of v's sub-list in chunk c, by the warp; the pieces
//     together visit each id once, without positions) and peek_edges (a pull lane scans this many
// in-edges of a longer list before the warp takes over; needs random_access).
//
// An algorithm supplies functors (structs of 8-byte fields, built from the kernels' FUNCTOR_PARAMS
// words in field order, kernels/cuda/runtime.py packing them) in its own .cu file:
//   advance   bool operator()(u32 v, u32 u, Edge e): u joins the output queue when true (the
//             same for advance_spans, whose functors take no per-span argument, and for rounds)
//   pull      bool wanted(u32 u); bool operator()(u32 u, u32 v, Edge e): v is what u looks for;
//             void adopt(u32 u, u32 v): u found it (u joins the output queue)
//   gather    bool wanted(u32 u); double operator()(u32 u, u32 v, Edge e); void apply(u32 u, double sum)
//             (by lanes: bool wanted(u32 u, u32 b); u64 lanes_of(u32 u, u32 v): the lanes the
//             edge feeds; double operator()(u32 u, u32 v, Edge e, u32 b), for those alone;
//             void apply(u32 u, u32 b, double sum), b the lane)
//   filter    bool operator()(u32 v): v joins the output queue when true
//   compute   void operator()(u32 v)
// A vertex set is a queue `input` of in->frontier ids, or, with input null, the in->frontier
// vertices from in->first (every vertex, or those whose lists a sweep's round holds).
#pragma once
#include "common.cuh"

// A queue's bookkeeping on the device: one row per iteration for the frontier, and one per
// algorithm queue. The host reads frontier and edges.
struct LevelSizes {
    u64 frontier;  // vertices in the queue
    u64 edges;     // their out-edges (for BFS's direction switch)
    u64 hubs;      // of the vertices being advanced, those left to the hub kernels
    u64 first;     // a range's first vertex (input null)
};

// Whether functor F reads its Edge (then every format visits ids with their positions).
template <class F>
__host__ __device__ constexpr auto reads_edges_(int) -> decltype(F::edges, bool()) {
    return F::edges;
}
template <class F>
__host__ __device__ constexpr bool reads_edges_(...) {
    return false;
}
template <class F>
constexpr bool reads_edges = reads_edges_<F>(0);

__device__ __forceinline__ i64 set_size(const LevelSizes* in) { return i64(in->frontier); }
__device__ __forceinline__ u32 set_vertex(const u32* input, const LevelSizes* in, i64 i) { return input ? input[i] : u32(in->first + i); }

// visit(u, e) for the out-edges (v, u) at global edge positions [lo, hi), across the chunks that
// hold them and are present, by the whole warp. Unless Format::random_access, [lo, hi) must cover
// whole per-chunk sub-lists.
template <class Format, bool Stop, bool Positions, class Visit>
__device__ bool for_each_edge(const Graph& g, i64 v, i64 lo, i64 hi, Visit&& visit) {
    while (lo < hi) {
        i64 c = lo / g.chunk_edges, start = c * g.chunk_edges;
        i64 end = min(hi, start + g.chunk_edges);
        if (g.present(c)) {
            const float* w = Positions ? g.weights(c) : nullptr;  // no load for a functor that reads no edge
            auto edge = [&](u32 u, u32 j) { return visit(u, Edge::at(start, w, j)); };
            if (Format::template for_each<Stop, Positions>(g, c, v, lo - start, end - start, edge)) return true;
        }
        lo = end;
    }
    return false;
}

// Whether v's edges [lo, hi) are for its lane alone: few, and in one chunk.
template <class Format>
__device__ bool lane_sized(const Graph& g, i64 lo, i64 hi) {
    return hi - lo <= Format::lane_edges && lo / g.chunk_edges == (hi - 1) / g.chunk_edges;
}

template <class Format, bool Stop, bool Positions, class Visit>
__device__ bool for_each_edge_lane(const Graph& g, i64 v, i64 lo, i64 hi, Visit&& visit) {
    i64 c = lo / g.chunk_edges, start = c * g.chunk_edges;
    if (!g.present(c)) return false;
    const float* w = Positions ? g.weights(c) : nullptr;
    auto edge = [&](u32 u, u32 j) { return visit(u, Edge::at(start, w, j)); };
    return Format::template for_each_lane<Stop, Positions>(g, c, v, lo - start, hi - start, edge);
}

// A place in the output queue for each vertex a functor accepts, once with `marks` (a bitmap of
// the vertices already queued), counted with its out-edges in `next`.
struct Output {
    const Graph& g;
    u32* out;
    LevelSizes* next;
    u32* marks;
    u64 edges = 0;  // this lane's queued vertices' out-edges

    __device__ void push(u32 u) {
        if (marks) {
            u32 bit = 1u << (u & 31);
            if (atomicOr(marks + (u >> 5), bit) & bit) return;
        }
        append(out, &next->frontier, u);
        edges += g.degree(u);
    }
    __device__ void done() { warp_add(&next->edges, edges); }
};

// Graffix's latency rounds: a block per cluster (a latency store's, as plain edge lists: cluster k's
// edges src[ptr[k] .. ptr[k + 1]) to dst[...]) that holds a vertex of `touched` (a bitmap), its
// threads over the cluster's edges, `rounds` times with a barrier between rounds, so each round sees
// what the ones before wrote. The state stays in global memory (block-local rounds, not shared
// memory: the functor's arrays are the whole graph's). `counts` gets the clusters touched and the
// edges visited.
__device__ __forceinline__ bool in_bitmap(const u32* bits, u32 v) { return bits[v >> 5] >> (v & 31) & 1u; }

template <class F>
__device__ void rounds(const i64* ptr, const u32* src, const u32* dst, const float* weight, i64 clusters, i64 rounds, const u32* touched, u64* counts, Output& out, const F& f) {
    for (i64 k = blockIdx.x; k < clusters; k += gridDim.x) {  // block-uniform
        const i64 lo = ptr[k], hi = ptr[k + 1];
        bool hit = false;
        for (i64 e = lo + threadIdx.x; e < hi && !hit; e += blockDim.x) hit = in_bitmap(touched, src[e]) || in_bitmap(touched, dst[e]);
        if (!__syncthreads_or(hit)) continue;
        for (i64 r = 0; r < rounds; ++r) {
            for (i64 e = lo + threadIdx.x; e < hi; e += blockDim.x)
                if (f(src[e], dst[e], Edge{e, weight ? weight + e : nullptr})) out.push(dst[e]);
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            atomicAdd(counts, u64(1));
            atomicAdd(counts + 1, u64((hi - lo) * rounds));
        }
    }
    out.done();
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

// A hub as queued: its id, and its piece count above, counted once by the lane that queues it.
__device__ __forceinline__ void queue_hub(const Graph& g, u64* hubs, LevelSizes* in, u32 v, i64 lo, i64 hi) {
    hubs[atomicAdd(&in->hubs, u64(1))] = u64(v) | u64(hub_pieces(lo, hi, g.chunk_edges)) << 32;
}

// Push, first kernel: a warp per vertex of the set; hubs (with split_hubs, unless the functor
// needs positions a format cannot give by pieces) are queued in `hubs` for advance_push_hubs. (A
// lane per short list loses here: a lane's visits follow one another, each a dependent load and
// atomic, where a warp issues 32 at once; measured on cnr-2000 and on kron23's large push
// levels.)
template <class Format, class F>
constexpr bool splits_hubs = Format::split_hubs && (Format::random_access || !reads_edges<F>);

template <class Format, class F>
__device__ void advance_push(const Graph& g, const u32* input, LevelSizes* in, u64* hubs, Output& out, const F& f) {
    for (i64 i = global_warp(), n = set_size(in); i < n; i += warp_count()) {
        u32 v = set_vertex(input, in, i);
        i64 lo = g.indptr[v], hi = g.indptr[v + 1];
        if (splits_hubs<Format, F> && hi - lo > HUB_EDGES) {
            if (lane_id() == 0) queue_hub(g, hubs, in, v, lo, hi);
        } else {
            for_each_edge<Format, false, reads_edges<F>>(g, v, lo, hi, [&](u32 u, const Edge& e) {
                if (f(v, u, e)) out.push(u);
                return false;
            });
        }
    }
    out.done();
}

// Push from consecutive spans of vertices, bounds[0 .. count], in one block, one span after
// another (__syncthreads between them, so each sees what the ones before wrote): layers too small
// to fill the device in one launch (WolfPath's combined edge lists). A lane pushes from a short
// list alone and the warp shares a longer one; no hubs (a span this small has none worth spreading).
template <class Format, class F>
__device__ void advance_spans(const Graph& g, const i64* bounds, i64 count, Output& out, const F& f) {
    constexpr bool P = reads_edges<F>;
    const i64 warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (i64 s = 0; s < count; ++s) {
        for (i64 base = bounds[s] + warp * 32, end = bounds[s + 1]; base < end; base += warps * 32) {
            i64 m = base + lane_id();
            i64 lo = m < end ? g.indptr[m] : 0, hi = m < end ? g.indptr[m + 1] : 0;
            bool alone = hi > lo && lane_sized<Format>(g, lo, hi);
            if (alone) {
                for_each_edge_lane<Format, false, P>(g, m, lo, hi, [&](u32 u, const Edge& e) {
                    if (f(u32(m), u, e)) out.push(u);
                    return false;
                });
            }
            for (u32 pending = __ballot_sync(FULL_MASK, hi > lo && !alone); pending; pending &= pending - 1) {
                int owner = __ffs(pending) - 1;
                i64 v = __shfl_sync(FULL_MASK, m, owner);
                for_each_edge<Format, false, P>(g, v, __shfl_sync(FULL_MASK, lo, owner), __shfl_sync(FULL_MASK, hi, owner), [&](u32 u, const Edge& e) {
                    if (f(u32(v), u, e)) out.push(u);
                    return false;
                });
            }
        }
        __syncthreads();
    }
    out.done();
}

// Piece p of `pieces` of v's sub-list [lo, hi) in chunk c (chunk-local positions), by the warp:
// PIECE_EDGES consecutive edges where the format reads any range, else the format's own cut.
template <class Format, class Visit>
__device__ void for_each_piece(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, i64 p, i64 pieces, Visit&& visit) {
    if constexpr (Format::random_access) {
        i64 a = lo + p * PIECE_EDGES;
        Format::template for_each<false, true>(g, c, v, a, min(hi, a + PIECE_EDGES), visit);
    } else {
        Format::template for_each_piece<false>(g, c, v, p, pieces, visit);
    }
}

// The hubs' pieces, dealt round-robin over every warp in hub and chunk order: piece(hub, c, lo,
// hi, r, pieces, q) with the warp, for piece r of `pieces` of the hub's sub-list [lo, hi) in chunk
// c (chunk-local), q its place among all the hubs' pieces. Each warp walks the hub list 32 hubs at
// a time (a lane per hub, a scan of the piece counts queued with them), so that a walk costs one
// load per 32 hubs (kron24, top-down BFS read in place from host memory on an H100: zero-copy CSR
// 340 -> 204 ms, ef 275 -> 123 ms). With `first`, the warp that deals a group's first piece
// writes where each of its hubs' pieces start.
template <class Piece>
__device__ void deal_hub_pieces(const Graph& g, const u64* hubs, u64 n_hubs, i64* first, Piece&& piece) {
    const i64 warps = warp_count(), me = global_warp();
    const u32 lane = lane_id();
    i64 dealt = 0;  // pieces of the hubs before this group of 32
    for (u64 h0 = 0; h0 < n_hubs; h0 += 32) {
        u64 entry = h0 + lane < n_hubs ? hubs[h0 + lane] : 0;
        i64 mine = i64(entry >> 32), end = mine;  // end: inclusive sum over lanes
        for (u32 d = 1; d < 32; d <<= 1) {
            i64 y = __shfl_up_sync(FULL_MASK, end, d);
            if (lane >= d) end += y;
        }
        i64 total = __shfl_sync(FULL_MASK, end, 31);
        i64 q = ((me - dealt) % warps + warps) % warps;  // warp-uniform
        if (first && q == 0 && h0 + lane < n_hubs) first[h0 + lane] = dealt + end - mine;
        for (; q < total; q += warps) {
            u32 owner = 0;  // the first lane whose inclusive sum passes q
            for (u32 b = 16; b; b >>= 1)
                if (__shfl_sync(FULL_MASK, end, owner + b - 1) <= q) owner += b;
            u32 hub = u32(__shfl_sync(FULL_MASK, entry, owner));
            i64 r = q - __shfl_sync(FULL_MASK, end, owner) + __shfl_sync(FULL_MASK, mine, owner);
            i64 a = g.indptr[hub], b = g.indptr[hub + 1];
            for (i64 e;; a = e) {  // the chunk that holds piece r of the hub
                i64 c = a / g.chunk_edges, start = c * g.chunk_edges;
                e = min(b, start + g.chunk_edges);
                i64 pieces = (e - a + PIECE_EDGES - 1) / PIECE_EDGES;
                if (r < pieces) {
                    piece(hub, c, a - start, e - start, r, pieces, dealt + q);
                    break;
                }
                r -= pieces;
            }
        }
        dealt += total;
    }
}

// Push, second kernel: the hubs' pieces.
template <class Format, class F>
__device__ void advance_push_hubs(const Graph& g, const u64* hubs, const LevelSizes* in, Output& out, const F& f) {
    deal_hub_pieces(g, hubs, in->hubs, nullptr, [&](u32 hub, i64 c, i64 lo, i64 hi, i64 r, i64 pieces, i64) {
        if (!g.present(c)) return;
        const i64 start = c * g.chunk_edges;
        const float* w = reads_edges<F> ? g.weights(c) : nullptr;
        for_each_piece<Format>(g, c, hub, lo, hi, r, pieces, [&](u32 u, u32 j) {
            if (f(hub, u, Edge::at(start, w, j))) out.push(u);
            return false;
        });
    });
    out.done();
}

// Pull: every vertex u of the set with f.wanted(u) scans its in-edges (g is the reverse graph)
// until f(u, v, e) holds, then f.adopt(u, v) runs once and u joins the output. Warps take 32
// vertices at a time and skip the unwanted and isolated ones together; a lane scans a short
// list alone, or peeks at the first peek_edges of a longer one, and the warp shares the scan of
// what is left, stopping at the first hit.
template <class Format, class F>
__device__ void advance_pull(const Graph& g, const u32* input, const LevelSizes* in, Output& out, const F& f) {
    constexpr i64 peek = Format::peek_edges;
    constexpr bool P = reads_edges<F>;
    for (i64 base = global_warp() * 32, n = set_size(in); base < n; base += warp_count() * 32) {
        i64 m = base + lane_id();
        u32 mine = m < n ? set_vertex(input, in, m) : 0;
        bool todo = m < n && g.degree(mine) > 0 && f.wanted(mine);
        bool adopted = false;
        i64 lo = 0, hi = 0;
        if (todo) {
            lo = g.indptr[mine], hi = g.indptr[mine + 1];
            i64 mine_hi = lane_sized<Format>(g, lo, hi) ? hi : lane_sized<Format>(g, lo, lo + peek) ? lo + peek : lo;
            u32 found = 0;
            auto test = [&](u32 v, const Edge& e) {
                found = v;
                return f(mine, v, e);
            };
            if (mine_hi > lo && for_each_edge_lane<Format, true, P>(g, mine, lo, mine_hi, test)) {
                f.adopt(mine, found);
                adopted = true;
            }
            todo = !adopted && mine_hi < hi;
            lo = mine_hi;
        }
        for (u32 pending = __ballot_sync(FULL_MASK, todo); pending; pending &= pending - 1) {
            int owner = __ffs(pending) - 1;
            u32 u = __shfl_sync(FULL_MASK, mine, owner);
            u32 found = 0;
            bool hit = false;
            bool any = for_each_edge<Format, true, P>(g, u, __shfl_sync(FULL_MASK, lo, owner), g.indptr[u + 1], [&](u32 v, const Edge& e) {
                if (!hit && f(u, v, e)) {
                    hit = true;
                    found = v;
                }
                return hit;
            });
            if (any) {
                int first = __ffs(__ballot_sync(FULL_MASK, hit)) - 1;
                found = __shfl_sync(FULL_MASK, found, first);
                if (lane_id() == owner) {
                    f.adopt(u, found);
                    adopted = true;
                }
            }
        }
        if (adopted) out.push(mine);
    }
    out.done();
}

// Gather: every vertex u of the set with f.wanted(u) sums f(u, v, e) over its in-edges present
// this round, then f.apply(u, sum); the warp shares a long list (a lane sums a short one alone),
// and hubs go to gather_hubs. Each chunk's share of a list is summed alone and the shares are
// added in chunk order, so rounds of consecutive chunks (a sweep) give the sums of one pass.
template <class Format, class F>
__device__ void gather(const Graph& g, const u32* input, LevelSizes* in, u64* hubs, const F& f) {
    constexpr bool P = reads_edges<F>;
    for (i64 base = global_warp() * 32, n = set_size(in); base < n; base += warp_count() * 32) {
        i64 m = base + lane_id();
        u32 mine = m < n ? set_vertex(input, in, m) : 0;
        bool todo = m < n && g.degree(mine) > 0 && f.wanted(mine);
        double sum = 0;
        i64 lo = todo ? g.indptr[mine] : 0, hi = todo ? g.indptr[mine + 1] : 0;
        if (splits_hubs<Format, F> && hi - lo > HUB_EDGES) {
            queue_hub(g, hubs, in, mine, lo, hi);
            todo = false;
        }
        bool alone = todo && lane_sized<Format>(g, lo, hi);
        if (alone) for_each_edge_lane<Format, false, P>(g, mine, lo, hi, [&](u32 v, const Edge& e) { return sum += f(mine, v, e), false; });
        for (u32 pending = __ballot_sync(FULL_MASK, todo && !alone); pending; pending &= pending - 1) {
            int owner = __ffs(pending) - 1;
            u32 u = __shfl_sync(FULL_MASK, mine, owner);
            double total = 0;
            for (i64 a = g.indptr[u], b = g.indptr[u + 1], end; a < b; a = end) {
                i64 c = a / g.chunk_edges, start = c * g.chunk_edges;
                end = min(b, start + g.chunk_edges);
                if (!g.present(c)) continue;
                const float* w = P ? g.weights(c) : nullptr;
                double share = 0;
                Format::template for_each<false, P>(g, c, u, a - start, end - start, [&](u32 v, u32 j) { return share += f(u, v, Edge::at(start, w, j)), false; });
                total += warp_sum(share);
            }
            if (lane_id() == owner) sum = total;
        }
        if (todo) f.apply(mine, sum);
    }
}

// Gather, second kernel: every hub piece's sum, at the piece's place in `sums`, by all warps (one
// warp per hub left kron23's PageRank waiting on its largest hubs).
template <class Format, class F>
__device__ void gather_hubs(const Graph& g, const u64* hubs, const LevelSizes* in, i64* first, double* sums, const F& f) {
    deal_hub_pieces(g, hubs, in->hubs, first, [&](u32 hub, i64 c, i64 lo, i64 hi, i64 r, i64 pieces, i64 q) {
        double share = 0;
        if (g.present(c)) {
            const i64 start = c * g.chunk_edges;
            const float* w = reads_edges<F> ? g.weights(c) : nullptr;
            for_each_piece<Format>(g, c, hub, lo, hi, r, pieces, [&](u32 v, u32 j) { return share += f(hub, v, Edge::at(start, w, j)), false; });
        }
        share = warp_sum(share);
        if (lane_id() == 0) sums[q] = share;
    });
}

// A hub's sum, its chunks' shares added in chunk order where the chunk is present: share(q,
// pieces) adds up a chunk's pieces, whose sums start at place q (the hub's first is `q`).
template <class Share>
__device__ double hub_total(const Graph& g, u32 u, i64 q, Share&& share) {
    double total = 0;
    for (i64 a = g.indptr[u], z = g.indptr[u + 1], end; a < z; a = end) {
        i64 c = a / g.chunk_edges;
        end = min(z, (c + 1) * g.chunk_edges);
        i64 pieces = (end - a + PIECE_EDGES - 1) / PIECE_EDGES;
        double s = share(q, pieces);
        if (g.present(c)) total += s;
        q += pieces;
    }
    return total;
}

// Gather, third kernel: a warp per hub adds its pieces' sums chunk by chunk, in order, and applies.
template <class F>
__device__ void gather_hubs_apply(const Graph& g, const u64* hubs, const LevelSizes* in, const i64* first, const double* sums, const F& f) {
    for (i64 h = global_warp(); h < i64(in->hubs); h += warp_count()) {
        u32 u = u32(hubs[h]);
        double total = hub_total(g, u, first[h], [&](i64 q, i64 pieces) {
            double share = 0;
            for (i64 k = lane_id(); k < pieces; k += 32) share += sums[q + k];
            return warp_sum(share);
        });
        if (lane_id() == 0) f.apply(u, total);
    }
}

// Gather by lanes: every vertex u of the set sums f(u, v, e, b) over its in-edges present this
// round for each lane b < lanes (at most 64) with f.wanted(u, b) and b among f.lanes_of(u, v) (the
// lanes an edge feeds, one word read once per edge), then f.apply(u, b, sum): many values a
// vertex (one per source of a batch), each summed in list order. A warp takes every lane of a
// vertex. Where the format reads any id alone (get), the warp reads the list 32 edges a round,
// lane j the round's j-th id and the lanes it feeds, all in flight together, then each thread
// adds the round's terms its lanes take, in order, from its neighbours' rows side by side (lane b
// reads column b); ef's warp decodes 32 ids a batch and goes on the same way; other formats'
// threads each decode the list alone. Hubs (where any range
// decodes alone) go to gather_lanes_hubs in pieces, their sums per piece and lane in `sums`.
template <class Format>
constexpr bool lanes_split_hubs = Format::random_access && Format::split_hubs;

template <class Format>
__device__ constexpr auto reads_ids_(int) -> decltype(Format::get, bool()) {
    return true;
}
template <class Format>
__device__ constexpr bool reads_ids_(...) {
    return false;
}
template <class Format>
constexpr bool reads_ids = reads_ids_<Format>(0);  // Format::get(g, c, j): the id at one position

template <class Format>
__device__ constexpr auto batches_(int) -> decltype(&Format::template for_each_batch<false, void (*)(u32, u32, bool)>, bool()) {
    return true;
}
template <class Format>
__device__ constexpr bool batches_(...) {
    return false;
}
template <class Format>
constexpr bool batches = batches_<Format>(0);  // Format::for_each_batch: a warp's converged batches of 32 ids

// Each thread of a warp carries LANE_ROWS lanes of a vertex, b = lane_id() + 32 h: the warp reads
// a list once for all of them.
constexpr int LANE_ROWS = int(MAX_LANES / 32);

__device__ __forceinline__ u32 lane_of(int h) { return lane_id() + 32 * u32(h); }

// The shares of positions [lo, hi) of u's sub-list in chunk c for this thread's lanes (on[h]: lane
// h takes terms at all), each summed in list order. With get, the whole warp calls it, converged.
template <class Format, bool P, class F>
__device__ void lanes_share(const Graph& g, i64 c, u32 u, i64 lo, i64 hi, const bool (&on)[LANE_ROWS], double (&share)[LANE_ROWS], const F& f) {
    const i64 start = c * g.chunk_edges;
    const float* w = P ? g.weights(c) : nullptr;
    auto add = [&](u32 v, u64 fed, i64 j) {
#pragma unroll
        for (int h = 0; h < LANE_ROWS; ++h)
            if (on[h] && (fed >> lane_of(h) & 1)) share[h] += f(u, v, Edge::at(start, w, j), lane_of(h));
    };
#pragma unroll
    for (int h = 0; h < LANE_ROWS; ++h) share[h] = 0;
    if constexpr (reads_ids<Format>) {
        for (i64 round = lo; round < hi; round += 32) {
            const i64 j = round + lane_id(), n = min(i64(32), hi - round);
            const u32 mine = j < hi ? Format::get(g, c, j) : 0;
            const u64 feeds = j < hi ? f.lanes_of(u, mine) : 0;
            for (i64 k = 0; k < n; ++k) {
                const u32 v = __shfl_sync(FULL_MASK, mine, k);
                add(v, __shfl_sync(FULL_MASK, feeds, k), round + k);
            }
        }
    } else if constexpr (batches<Format>) {
        Format::template for_each_batch<P>(g, c, u, lo, hi, [&](u32 mine, u32 j, bool in) {
            const u64 feeds = in ? f.lanes_of(u, mine) : 0;
            for (int k = 0; k < 32; ++k) add(__shfl_sync(FULL_MASK, mine, k), __shfl_sync(FULL_MASK, feeds, k), __shfl_sync(FULL_MASK, j, k));
        });
    } else {
        Format::template for_each_lane<false, P>(g, c, u, lo, hi, [&](u32 v, u32 j) { return add(v, f.lanes_of(u, v), j), false; });
    }
}

template <class Format, class F>
__device__ void gather_lanes(const Graph& g, const u32* input, LevelSizes* in, u64* hubs, i64 lanes, const F& f) {
    constexpr bool P = reads_edges<F>;
    for (i64 i = global_warp(), n = set_size(in); i < n; i += warp_count()) {  // warp-uniform
        u32 u = set_vertex(input, in, i);
        i64 lo = g.indptr[u], hi = g.indptr[u + 1];
        if (lanes_split_hubs<Format> && hi - lo > HUB_EDGES) {
            if (lane_id() == 0) queue_hub(g, hubs, in, u, lo, hi);
            continue;
        }
        bool on[LANE_ROWS], any = false;
        for (int h = 0; h < LANE_ROWS; ++h) any |= on[h] = lane_of(h) < lanes && lo < hi && f.wanted(u, lane_of(h));
        if (!__any_sync(FULL_MASK, any)) continue;
        double total[LANE_ROWS] = {}, share[LANE_ROWS];
        for (i64 end; lo < hi; lo = end) {
            i64 c = lo / g.chunk_edges;
            end = min(hi, (c + 1) * g.chunk_edges);
            if (!g.present(c)) continue;
            lanes_share<Format, P>(g, c, u, lo - c * g.chunk_edges, end - c * g.chunk_edges, on, share, f);
            for (int h = 0; h < LANE_ROWS; ++h) total[h] += share[h];
        }
        for (int h = 0; h < LANE_ROWS; ++h)
            if (on[h]) f.apply(u, lane_of(h), total[h]);
    }
}

// Gather by lanes, second kernel: each hub piece's sum for every lane, at sums[piece * lanes + b].
template <class Format, class F>
__device__ void gather_lanes_hubs(const Graph& g, const u64* hubs, const LevelSizes* in, i64* first, double* sums, i64 lanes, const F& f) {
    if constexpr (lanes_split_hubs<Format>) {
        deal_hub_pieces(g, hubs, in->hubs, first, [&](u32 hub, i64 c, i64 lo, i64 hi, i64 r, i64, i64 q) {
            i64 a = lo + r * PIECE_EDGES, e = min(hi, a + PIECE_EDGES);
            bool on[LANE_ROWS];
            double share[LANE_ROWS] = {};
            for (int h = 0; h < LANE_ROWS; ++h) on[h] = lane_of(h) < lanes && f.wanted(hub, lane_of(h));
            if (g.present(c)) lanes_share<Format, reads_edges<F>>(g, c, hub, a, e, on, share, f);
            for (int h = 0; h < LANE_ROWS; ++h)
                if (lane_of(h) < lanes) sums[q * lanes + lane_of(h)] = share[h];
        });
    }
}

// Gather by lanes, third kernel: a warp per hub, each lane adding its pieces' sums chunk by chunk.
template <class F>
__device__ void gather_lanes_apply(const Graph& g, const u64* hubs, const LevelSizes* in, const i64* first, const double* sums, i64 lanes, const F& f) {
    for (i64 h = global_warp(); h < i64(in->hubs); h += warp_count()) {
        u32 u = u32(hubs[h]);
        for (u32 b = lane_id(); b < lanes; b += 32) {
            if (!f.wanted(u, b)) continue;
            f.apply(u, b, hub_total(g, u, first[h], [&](i64 q, i64 pieces) {
                double share = 0;
                for (i64 k = 0; k < pieces; ++k) share += sums[(q + k) * lanes + b];
                return share;
            }));
        }
    }
}

// Pull from a sidecar, before advance_pull: where the scheduler keeps one candidate of every
// vertex on the device (candidates[u]; n or more: unknown), each u with f.wanted(u) whose
// candidate passes f(u, v, e) is adopted without its list being read (so advance_pull, which asks
// wanted(u) again, skips it). The edge is not known there (id -1, no weight).
template <class F>
__device__ void pull_sidecar(const u32* candidates, i64 n, const u32* input, const LevelSizes* in, Output& out, const F& f) {
    for (i64 base = global_warp() * 32, count = set_size(in); base < count; base += warp_count() * 32) {
        i64 m = base + lane_id();
        u32 u = m < count ? set_vertex(input, in, m) : 0;
        bool todo = m < count && f.wanted(u);
        u32 v = todo ? candidates[u] : 0;
        if (todo && v < n && f(u, v, Edge{-1, nullptr})) {
            f.adopt(u, v);
            out.push(u);
        }
    }
    out.done();
}

// Demand: how many edges of each chunk an iteration will read, so that the scheduler can bring the
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

// ---------------------------------------------------------------------------------------------
// Kernels. GRAPH_PARAMS describe the graph; a vertex set is `input`/`in` (above); a kernel that
// queues vertices appends them to `out`, counted in `next`, once with `marks`; FUNCTOR_PARAMS are
// the functor's fields as 8-byte words.

#define SET_PARAMS const u32 *input, LevelSizes *in
#define OUTPUT_PARAMS u32 *out, LevelSizes *next, u32 *marks
#define FUNCTOR_PARAMS u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5, u64 a6, u64 a7
#define FUNCTOR_ARGS a0, a1, a2, a3, a4, a5, a6, a7

template <class F>
__device__ F functor_of(FUNCTOR_PARAMS) {
    static_assert(sizeof(F) <= 64 && sizeof(F) % 8 == 0, "a functor is at most 8 fields of 8 bytes");
    const u64 words[8] = {FUNCTOR_ARGS};
    F f;
    memcpy(&f, words, sizeof(F));
    return f;
}

template <class Format, class F>
__global__ void advance_push_kernel(GRAPH_PARAMS, SET_PARAMS, u64* hubs, OUTPUT_PARAMS, FUNCTOR_PARAMS) {
    Graph g = GRAPH_ARGS;
    Output o{g, out, next, marks};
    advance_push<Format>(g, input, in, hubs, o, functor_of<F>(FUNCTOR_ARGS));
}

template <class Format, class F>
__global__ void advance_hubs_kernel(GRAPH_PARAMS, SET_PARAMS, u64* hubs, OUTPUT_PARAMS, FUNCTOR_PARAMS) {
    Graph g = GRAPH_ARGS;
    Output o{g, out, next, marks};
    advance_push_hubs<Format>(g, hubs, in, o, functor_of<F>(FUNCTOR_ARGS));
}

template <class Format, class F>
__global__ void advance_spans_kernel(GRAPH_PARAMS, const i64* bounds, i64 count, OUTPUT_PARAMS, FUNCTOR_PARAMS) {
    Graph g = GRAPH_ARGS;
    Output o{g, out, next, marks};
    advance_spans<Format>(g, bounds, count, o, functor_of<F>(FUNCTOR_ARGS));
}

template <class Format, class F>
__global__ void advance_pull_kernel(GRAPH_PARAMS, SET_PARAMS, OUTPUT_PARAMS, FUNCTOR_PARAMS) {
    Graph g = GRAPH_ARGS;
    Output o{g, out, next, marks};
    advance_pull<Format>(g, input, in, o, functor_of<F>(FUNCTOR_ARGS));
}

#define GATHER_PARAMS GRAPH_PARAMS, SET_PARAMS, u64 *hubs, i64 *first, double *sums, FUNCTOR_PARAMS

template <class Format, class F>
__global__ void gather_kernel(GATHER_PARAMS) {
    gather<Format>(GRAPH_ARGS, input, in, hubs, functor_of<F>(FUNCTOR_ARGS));
}

template <class Format, class F>
__global__ void gather_hubs_kernel(GATHER_PARAMS) {
    gather_hubs<Format>(GRAPH_ARGS, hubs, in, first, sums, functor_of<F>(FUNCTOR_ARGS));
}

template <class F>
__global__ void gather_apply_kernel(GATHER_PARAMS) {
    gather_hubs_apply(GRAPH_ARGS, hubs, in, first, sums, functor_of<F>(FUNCTOR_ARGS));
}

#define LANES_PARAMS GATHER_PARAMS, i64 lanes

template <class Format, class F>
__global__ void gather_lanes_kernel(LANES_PARAMS) {
    gather_lanes<Format>(GRAPH_ARGS, input, in, hubs, lanes, functor_of<F>(FUNCTOR_ARGS));
}

template <class Format, class F>
__global__ void gather_lanes_hubs_kernel(LANES_PARAMS) {
    gather_lanes_hubs<Format>(GRAPH_ARGS, hubs, in, first, sums, lanes, functor_of<F>(FUNCTOR_ARGS));
}

template <class F>
__global__ void gather_lanes_apply_kernel(LANES_PARAMS) {
    gather_lanes_apply(GRAPH_ARGS, hubs, in, first, sums, lanes, functor_of<F>(FUNCTOR_ARGS));
}

template <class F>
__global__ void rounds_kernel(const i64* indptr, const i64* ptr, const u32* src, const u32* dst, const float* weight, i64 clusters, i64 rounds, const u32* touched, u64* counts, OUTPUT_PARAMS, FUNCTOR_PARAMS) {
    Graph g{nullptr, indptr, 0, 0, 0};  // for the queued vertices' degrees
    Output o{g, out, next, marks};
    ::rounds(ptr, src, dst, weight, clusters, rounds, touched, counts, o, functor_of<F>(FUNCTOR_ARGS));
}

template <class F>
__global__ void pull_sidecar_kernel(const u32* candidates, GRAPH_PARAMS, SET_PARAMS, OUTPUT_PARAMS, FUNCTOR_PARAMS) {
    Graph g = GRAPH_ARGS;
    Output o{g, out, next, marks};
    pull_sidecar(candidates, n_vertices, input, in, o, functor_of<F>(FUNCTOR_ARGS));
}

// The in-edges a pull may read: the first PULL_READS of the list of each wanted vertex of its set
// (an estimate: a pull stops at its first hit).
template <class F>
__global__ void pull_demand_kernel(const i64* indptr, i64 chunk_edges, SET_PARAMS, u64* demand, FUNCTOR_PARAMS) {
    F f = functor_of<F>(FUNCTOR_ARGS);
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x, n = set_size(in); i < n; i += i64(gridDim.x) * blockDim.x) {
        u32 u = set_vertex(input, in, i);
        if (f.wanted(u)) add_demand(chunk_edges, indptr[u], indptr[u + 1], PULL_READS, demand);
    }
}

template <class F>
__global__ void filter_kernel(SET_PARAMS, u32* out, LevelSizes* next, FUNCTOR_PARAMS) {
    F f = functor_of<F>(FUNCTOR_ARGS);
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x, n = set_size(in); i < n; i += i64(gridDim.x) * blockDim.x) {
        u32 v = set_vertex(input, in, i);
        if (f(v)) append(out, &next->frontier, v);
    }
}

template <class F>
__global__ void compute_kernel(SET_PARAMS, FUNCTOR_PARAMS) {
    F f = functor_of<F>(FUNCTOR_ARGS);
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x, n = set_size(in); i < n; i += i64(gridDim.x) * blockDim.x) f(set_vertex(input, in, i));
}

// Push demand: exact, the set's out-edges per chunk.
extern "C" __global__ void push_demand(const i64* indptr, i64 chunk_edges, SET_PARAMS, u64* demand) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x, n = set_size(in); i < n; i += i64(gridDim.x) * blockDim.x) {
        u32 v = set_vertex(input, in, i);
        add_demand(chunk_edges, indptr[v], indptr[v + 1], EVERY_EDGE, demand);
    }
}

// The first frontier: `vertex` alone (with `edges` out-edges) in `queue`, its sizes in row 0 and
// the other rows zero. One launch where array writes from the host would be several.
extern "C" __global__ void frontier_start(u32* queue, LevelSizes* sizes, i64 rows, i64 vertex, i64 edges) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < rows; i += i64(gridDim.x) * blockDim.x)
        sizes[i] = i == 0 ? LevelSizes{vertex >= 0 ? 1ull : 0ull, u64(edges), 0, 0} : LevelSizes{};
    if (blockIdx.x == 0 && threadIdx.x == 0 && vertex >= 0) queue[0] = u32(vertex);
}

// A range set's row: `count` vertices from `first`, no hubs queued yet.
extern "C" __global__ void set_range(LevelSizes* row, i64 first, i64 count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *row = LevelSizes{u64(count), 0, 0, u64(first)};
}

// The OR of words[v] over a vertex set into *bits (zero before): a warp's words combined first.
extern "C" __global__ void any_bits(SET_PARAMS, const u64* words, u64* bits) {
    u64 mine = 0;
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < set_size(in); i += i64(gridDim.x) * blockDim.x) mine |= words[set_vertex(input, in, i)];
    for (u32 d = 16; d; d >>= 1) mine |= __shfl_xor_sync(FULL_MASK, mine, d);
    if (lane_id() == 0 && mine) atomicOr(bits, mine);
}

// The list entries of the vertices whose value is not negative into *total (zero before): BFS's
// edges traversed, a warp's sum added once.
extern "C" __global__ void reached_entries(const i32* values, const i64* indptr, i64 n, u64* total) {
    u64 mine = 0;
    for (i64 v = i64(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += i64(gridDim.x) * blockDim.x)
        if (values[v] >= 0) mine += u64(indptr[v + 1] - indptr[v]);
    for (u32 d = 16; d; d >>= 1) mine += __shfl_xor_sync(FULL_MASK, mine, d);
    if (lane_id() == 0 && mine) atomicAdd(total, mine);
}

// A queue as a bitmap (bits must be zero), set with atomicOr; and its marks cleared again.
extern "C" __global__ void queue_to_bitmap(SET_PARAMS, u32* bits) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < i64(in->frontier); i += i64(gridDim.x) * blockDim.x)
        atomicOr(bits + (input[i] >> 5), 1u << (input[i] & 31));
}

extern "C" __global__ void clear_bitmap(SET_PARAMS, u32* bits) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < i64(in->frontier); i += i64(gridDim.x) * blockDim.x)
        bits[input[i] >> 5] = 0;
}

// The vertices of [first, end) set in a bitmap, appended to a queue with their out-edges (a warp's
// ids in order, one atomic per warp): a part's own share of a frontier merged across devices.
extern "C" __global__ void bitmap_to_queue(const u32* bits, i64 first, i64 end, const i64* indptr, u32* queue, LevelSizes* out) {
    const int lane = threadIdx.x & 31;
    for (i64 base = first + i64(blockIdx.x) * blockDim.x + (threadIdx.x & ~31); base < end; base += i64(gridDim.x) * blockDim.x) {
        const i64 v = base + lane;
        const bool set = v < end && (bits[v >> 5] >> (v & 31) & 1u);
        const u32 ballot = __ballot_sync(0xffffffffu, set);
        if (!ballot) continue;
        const int leader = __ffs(ballot) - 1;
        u64 at = 0;
        if (lane == leader) at = atomicAdd(&out->frontier, u64(__popc(ballot)));
        at = __shfl_sync(0xffffffffu, at, leader);
        u64 degree = set ? u64(indptr[v + 1] - indptr[v]) : 0;
        for (int offset = 16; offset; offset >>= 1) degree += __shfl_down_sync(0xffffffffu, degree, offset);
        if (set) queue[at + __popc(ballot & ((1u << lane) - 1u))] = u32(v);
        if (lane == 0) atomicAdd(&out->edges, degree);
    }
}

// A bitmap's set bits as ids in increasing order, the same order on every part of a split run (a
// merge of the values at those ids lines up element by element): `counts` gets each word's bits,
// then, summed inclusively on the host's stream, `ends` says where each word's ids end.
extern "C" __global__ void bitmap_counts(const u32* bits, i64 words, i64* counts) {
    for (i64 w = i64(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += i64(gridDim.x) * blockDim.x) counts[w] = __popc(bits[w]);
}

extern "C" __global__ void bitmap_to_ids(const u32* bits, i64 words, const i64* ends, u32* ids) {
    for (i64 w = i64(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += i64(gridDim.x) * blockDim.x) {
        u32 b = bits[w];
        for (i64 at = ends[w] - __popc(b); b; b &= b - 1) ids[at++] = u32(w * 32 + __ffs(b) - 1);
    }
}

// The vertices set in a bitmap take `value` (its low `itemsize` bytes) in `a`: a state array that
// the union of a split run's queues decides (runtime/functors.py, Combine.value). A word a thread.
extern "C" __global__ void set_at_bitmap(const u32* bits, i64 words, void* a, i64 itemsize, u64 value) {
    for (i64 w = i64(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += i64(gridDim.x) * blockDim.x)
        for (u32 b = bits[w]; b; b &= b - 1) {
            const i64 v = w * 32 + __ffs(b) - 1;
            if (itemsize == 8) static_cast<u64*>(a)[v] = value;
            else if (itemsize == 4) static_cast<u32*>(a)[v] = u32(value);
            else if (itemsize == 2) static_cast<unsigned short*>(a)[v] = static_cast<unsigned short>(value);
            else static_cast<unsigned char*>(a)[v] = static_cast<unsigned char>(value);
        }
}

// Explicit instantiations, so that nvcc checks every kernel of an algorithm for every decoder of
// every format without a GPU; NVRTC (__CUDACC_RTC__) compiles only what runtime.py names. An
// algorithm's .cu lists its functors by operator: INSTANTIATE(ADVANCE, Visit) and so on.
#ifdef __CUDACC_RTC__
#define INSTANTIATE(OPERATOR, F)
#else
#define INSTANTIATE(OPERATOR, F) INSTANTIATE_##OPERATOR(F)
#endif
#define INSTANTIATE_ADVANCE_1(Format, F)                                                                                   \
    template __global__ void advance_push_kernel<Format, F>(GRAPH_PARAMS, SET_PARAMS, u64*, OUTPUT_PARAMS, FUNCTOR_PARAMS); \
    template __global__ void advance_hubs_kernel<Format, F>(GRAPH_PARAMS, SET_PARAMS, u64*, OUTPUT_PARAMS, FUNCTOR_PARAMS);
#define INSTANTIATE_SPANS_1(Format, F) template __global__ void advance_spans_kernel<Format, F>(GRAPH_PARAMS, const i64*, i64, OUTPUT_PARAMS, FUNCTOR_PARAMS);
#define INSTANTIATE_PULL_1(Format, F) template __global__ void advance_pull_kernel<Format, F>(GRAPH_PARAMS, SET_PARAMS, OUTPUT_PARAMS, FUNCTOR_PARAMS);
#define INSTANTIATE_GATHER_1(Format, F)                             \
    template __global__ void gather_kernel<Format, F>(GATHER_PARAMS); \
    template __global__ void gather_hubs_kernel<Format, F>(GATHER_PARAMS);
#define INSTANTIATE_GATHER_LANES_1(Format, F)                             \
    template __global__ void gather_lanes_kernel<Format, F>(LANES_PARAMS); \
    template __global__ void gather_lanes_hubs_kernel<Format, F>(LANES_PARAMS);
#define INSTANTIATE_ADVANCE(F) FOR_EACH_FORMAT_WITH(INSTANTIATE_ADVANCE_1, F)
#define INSTANTIATE_SPANS(F) FOR_EACH_FORMAT_WITH(INSTANTIATE_SPANS_1, F)
#define INSTANTIATE_GATHER(F) FOR_EACH_FORMAT_WITH(INSTANTIATE_GATHER_1, F) template __global__ void gather_apply_kernel<F>(GATHER_PARAMS);
#define INSTANTIATE_GATHER_LANES(F) FOR_EACH_FORMAT_WITH(INSTANTIATE_GATHER_LANES_1, F) template __global__ void gather_lanes_apply_kernel<F>(LANES_PARAMS);
#define INSTANTIATE_PULL(F)                                                                                                   \
    FOR_EACH_FORMAT_WITH(INSTANTIATE_PULL_1, F)                                                                               \
    template __global__ void pull_sidecar_kernel<F>(const u32*, GRAPH_PARAMS, SET_PARAMS, OUTPUT_PARAMS, FUNCTOR_PARAMS); \
    template __global__ void pull_demand_kernel<F>(const i64*, i64, SET_PARAMS, u64*, FUNCTOR_PARAMS);
#define INSTANTIATE_ROUNDS(F) \
    template __global__ void rounds_kernel<F>(const i64*, const i64*, const u32*, const u32*, const float*, i64, i64, const u32*, u64*, OUTPUT_PARAMS, FUNCTOR_PARAMS);
#define INSTANTIATE_FILTER(F) template __global__ void filter_kernel<F>(SET_PARAMS, u32*, LevelSizes*, FUNCTOR_PARAMS);
#define INSTANTIATE_COMPUTE(F) template __global__ void compute_kernel<F>(SET_PARAMS, FUNCTOR_PARAMS);
