// log (MPLG): word 0 of the payload is b; local edge j is bits [j b, j b + b) of the words after
// it, LSB-first. The zero padding word after the data makes the two-word read of the last id safe.
#pragma once
#include "common.cuh"

struct Log {
    template <bool Stop, class Visit>
    __device__ static bool for_each(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        const u32* payload = g.payload(c);
        u32 b = payload[0];
        const u32* data = payload + 1;
        for (i64 j = lo + lane_id(); j - lane_id() < hi; j += 32) {
            bool hit = j < hi && visit(bits_lsb(data, u64(j) * b, b));
            if (Stop && __any_sync(FULL_MASK, hit)) return true;
        }
        return false;
    }
};
