// Gunrock's advance as device templates over any format. A format supplies
//   template <bool Stop, class Visit> static bool for_each(g, c, v, lo, hi, visit)
// calling visit(u) for every id of source v's sub-list in chunk c, cooperatively across a warp.
// An algorithm supplies functors and a three-line kernel that calls an operator.
#pragma once
#include "common.cuh"

// Visits every out-edge (v, u) of v across the chunks that hold v's edges; visit(u) -> bool
// (with Stop, true ends the scan). Returns whether a visit stopped it.
template <class Format, bool Stop, class Visit>
__device__ bool for_each_neighbor(const Graph& g, i64 v, Visit&& visit) {
    i64 lo = g.indptr[v], hi = g.indptr[v + 1];
    while (lo < hi) {
        i64 c = lo / g.chunk_edges, start = c * g.chunk_edges;
        i64 end = min(hi, start + g.chunk_edges);
        if (Format::template for_each<Stop>(g, c, v, lo - start, end - start, visit)) return true;
        lo = end;
    }
    return false;
}

// Push: a warp per frontier vertex. visit(v, u) -> bool claims u; claimed vertices are appended
// to `out` (counted in counters[0]) and their degrees summed into counters[1].
template <class Format, class Visit>
__device__ void advance_push(const Graph& g, const u32* frontier, i64 n, u32* out, u64* counters, Visit visit) {
    u64 claimed_edges = 0;
    for (i64 i = global_warp(); i < n; i += warp_count()) {
        u32 v = frontier[i];
        for_each_neighbor<Format, false>(g, v, [&](u32 u) {
            if (visit(v, u)) {
                append(out, counters, u);
                claimed_edges += g.degree(u);
            }
            return false;
        });
    }
    warp_add(counters + 1, claimed_edges);
}

// Pull: every vertex u with wanted(u) scans its in-edges (g is the reverse graph) until
// parent(u, v) holds, then adopt(u, v) runs once. Warps take 32 vertices at a time, skip the
// unwanted and isolated ones together, and share the scan of each wanted one. Adopted vertices
// are appended to `out` as in advance_push.
template <class Format, class Wanted, class Parent, class Adopt>
__device__ void advance_pull(const Graph& g, u32* out, u64* counters, Wanted wanted, Parent parent, Adopt adopt) {
    u64 adopted_edges = 0;
    i64 stride = warp_count() * 32;
    for (i64 base = global_warp() * 32; base < g.n_vertices; base += stride) {
        i64 mine = base + lane_id();
        bool todo = mine < g.n_vertices && g.degree(mine) > 0 && wanted(u32(mine));
        bool adopted = false;
        for (u32 pending = __ballot_sync(FULL_MASK, todo); pending; pending &= pending - 1) {
            int owner = __ffs(pending) - 1;
            u32 u = u32(base + owner);
            u32 found = 0;
            bool hit = false;
            bool any = for_each_neighbor<Format, true>(g, u, [&](u32 v) {
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
            append(out, counters, u32(mine));
            adopted_edges += g.degree(mine);
        }
    }
    warp_add(counters + 1, adopted_edges);
}

// The first *n vertices of a queue as a bitmap (bits must be zero), set with atomicOr.
extern "C" __global__ void queue_to_bitmap(const u32* queue, const u64* n, u32* bits) {
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < *n; i += i64(gridDim.x) * blockDim.x)
        atomicOr(bits + (queue[i] >> 5), 1u << (queue[i] & 31));
}
