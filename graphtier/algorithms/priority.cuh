// The vertex orders of MIS and colouring on the GPU, as graphtier/algorithms/priority.py computes
// them on the CPU: degrees of a graph read as undirected, and seeded priorities, splitmix64's
// finaliser (a bijection) of the input's id plus the seed's key.
#pragma once

// v's neighbours as stored: its out- plus in-list (one list where `same`, a symmetric graph's).
__device__ __forceinline__ i64 list_entries(u32 v, const i64* out_ptr, const i64* in_ptr, i64 same) {
    return out_ptr[v + 1] - out_ptr[v] + (same ? 0 : in_ptr[v + 1] - in_ptr[v]);
}

__device__ __forceinline__ u64 mix(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct Priority {
    u64* prio;
    i64 has_ids;  // prio holds the input's ids already (a renumbered store)
    i64 key;
    __device__ void operator()(u32 v) const { prio[v] = mix((has_ids ? prio[v] : u64(v)) + u64(key)); }
};
