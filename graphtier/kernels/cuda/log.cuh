// log (MPLG): word 0 of the payload is b; local edge j is bits [j b, j b + b) of the words after
// it, LSB-first. The zero padding word after the data makes the two-word read of the last id safe.
#pragma once
#include "random_access.cuh"

template <bool Balanced = true>
struct LogT : RandomAccess<LogT<Balanced>, Balanced> {
    __device__ static u32 get(const Graph& g, i64 c, i64 j) {
        const u32* payload = g.payload(c);
        return bits_lsb(payload + 1, u64(j) * payload[0], payload[0]);
    }
};
using Log = LogT<>;
using LogWarp = LogT<false>;
