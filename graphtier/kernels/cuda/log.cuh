// log (MPLG): word 0 of the payload is b; local edge j is bits [j b, j b + b) of the words after
// it, LSB-first. The zero padding word after the data makes the two-word read of the last id safe.
#pragma once
#include "common.cuh"

// Balanced: MPLG's thread, warp and block granularities (a lane per short list, a warp per longer
// one, many warps per hub; pull lanes peek at in-edges first); without it, a warp per list.
template <bool Balanced = true>
struct LogT {
    static constexpr bool random_access = true;  // get(), and any [lo, hi) of for_each
    static constexpr bool split_hubs = Balanced;
    static constexpr i64 peek_edges = Balanced ? 4 : 0;
    static constexpr i64 lane_edges = Balanced ? 32 : 0;

    __device__ static u32 get(const Graph& g, i64 c, i64 j) {
        const u32* payload = g.payload(c);
        return bits_lsb(payload + 1, u64(j) * payload[0], payload[0]);
    }

    template <bool Stop, class Visit>
    __device__ static bool for_each(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        for (i64 j = lo + lane_id(); j - lane_id() < hi; j += 32) {
            bool hit = j < hi && visit(get(g, c, j));
            if (Stop && __any_sync(FULL_MASK, hit)) return true;
        }
        return false;
    }

    template <bool Stop, class Visit>
    __device__ static bool for_each_lane(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        for (i64 j = lo; j < hi; j++)
            if (visit(get(g, c, j)) && Stop) return true;
        return false;
    }
};
using Log = LogT<>;
using LogWarp = LogT<false>;
