// csr: the payload is the chunk's destination ids, one 32-bit word each.
#pragma once
#include "common.cuh"

struct Csr {
    // Calls visit(u) for the ids at chunk-local positions [lo, hi) of chunk c (one sub-list),
    // 32 at a time across the warp. With Stop, returns true at the first round in which any
    // lane's visit returned true. All 32 lanes call it with the same arguments.
    template <bool Stop, class Visit>
    __device__ static bool for_each(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        const u32* ids = g.payload(c);
        for (i64 j = lo + lane_id(); j - lane_id() < hi; j += 32) {
            bool hit = j < hi && visit(ids[j]);
            if (Stop && __any_sync(FULL_MASK, hit)) return true;
        }
        return false;
    }
};
