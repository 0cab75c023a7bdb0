// csr: the payload is the chunk's destination ids, one 32-bit word each.
#pragma once
#include "random_access.cuh"

template <bool Balanced = true>
struct CsrT : RandomAccess<CsrT<Balanced>, Balanced> {
    // The id at chunk-local position j of chunk c.
    __device__ static u32 get(const Graph& g, i64 c, i64 j) { return g.payload(c)[j]; }
};
using Csr = CsrT<>;
using CsrWarp = CsrT<false>;
