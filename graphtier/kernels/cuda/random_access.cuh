// The walks and traits of formats whose ids can be read one at a time, Format::get(g, c, j)
// (csr, log): a format derives from RandomAccess<itself, Balanced> and supplies get.
#pragma once
#include "common.cuh"

// Balanced: MPLG's thread, warp and block granularities (hubs spread over many warps, pull lanes
// scanning short lists and peeking at longer ones alone); without it, a warp per list.
template <class Format, bool Balanced>
struct RandomAccess {
    static constexpr bool random_access = true;  // get(), and any [lo, hi) of for_each
    static constexpr bool split_hubs = Balanced;
    static constexpr i64 peek_edges = Balanced ? 4 : 0;
    static constexpr i64 lane_edges = Balanced ? 32 : 0;

    // Calls visit(u, j) for the ids u at chunk-local positions j in [lo, hi) of chunk c (one
    // sub-list), 32 at a time across the warp. With Stop, returns true at the first round in
    // which any lane's visit returned true. All 32 lanes call it with the same arguments.
    // (Positions: every format's visits carry j; this one's always.)
    // A range longer than a warp starts at Format::line_start, lanes before lo idle (EMOGI's
    // merged, aligned reads); a shorter one touches the same lines from lo, in one round.
    template <bool Stop, bool Positions, class Visit>
    __device__ static bool for_each(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        for (i64 j = (hi - lo > 32 ? Format::line_start(g, c, lo) : lo) + lane_id(); j - lane_id() < hi; j += 32) {
            bool hit = j >= lo && j < hi && visit(Format::get(g, c, j), u32(j));
            if (Stop && __any_sync(FULL_MASK, hit)) return true;
        }
        return false;
    }

    // Where a warp's walk from position lo starts: lo itself, unless the format's ids are words.
    __device__ static i64 line_start(const Graph& g, i64 c, i64 lo) { return lo; }

    template <bool Stop, bool Positions, class Visit>
    __device__ static bool for_each_lane(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        for (i64 j = lo; j < hi; j++)
            if (visit(Format::get(g, c, j), u32(j)) && Stop) return true;
        return false;
    }
};
