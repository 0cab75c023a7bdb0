// csr: the payload is the chunk's destination ids, one 32-bit word each.
#pragma once
#include "random_access.cuh"

template <bool Balanced = true>
struct CsrT : RandomAccess<CsrT<Balanced>, Balanced> {
    // The id at chunk-local position j of chunk c.
    __device__ static u32 get(const Graph& g, i64 c, i64 j) { return g.payload(c)[j]; }
    // The first position of the 128-byte line holding position lo (chunks start on a line in every
    // tier): a warp then reads whole lines of ids, and of weights, which lie at the same place in
    // a line (tiering/resident.py). Read in place over PCIe, each line crosses the bus once, not twice.
    __device__ static i64 line_start(const Graph& g, i64 c, i64 lo) { return lo - (((g.at(c, PAYLOAD_START) - g.at(c, CHUNK_START)) / 4 + lo) & 31); }
};
using Csr = CsrT<>;
using CsrWarp = CsrT<false>;
