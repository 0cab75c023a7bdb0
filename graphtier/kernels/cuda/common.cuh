// The graph as kernels see it, and warp helpers shared by every format and operator.
//
// Encoded chunks lie 8-byte aligned, wherever the tiers put them: in a device arena, or in mapped
// pinned host memory that kernels read in place (zero-copy). The chunk table has one row per
// chunk (its columns generated from tiering/resident.py into registry.cuh) holding the addresses
// of the chunk, its index, its payload and its edges' weights, so a format finds them without
// parsing the header (a chunk read in place has its index in the device's index arena, with the
// header before it); a chunk that is not present in this round has ABSENT there, and operators
// skip its edges. Ids are 32-bit on the GPU; chunks are read as little-endian uint32 words.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
typedef int i32;

#define FULL_MASK 0xffffffffu

#include "registry.cuh"

struct Graph {
    const i64* table;   // n_chunks x TABLE_COLUMNS
    const i64* indptr;  // V + 1 global edge offsets
    i64 chunk_edges;
    i64 n_vertices;
    i64 weighted;  // whether the operator reads weights: a weighted graph may serve a run that reads none

    __device__ i64 at(i64 c, int column) const { return table[c * TABLE_COLUMNS + column]; }
    __device__ bool present(i64 c) const { return at(c, CHUNK_START) != ABSENT; }
    // Chunk c's sections as words; every section is 8-byte aligned, so this is exact. They may
    // lie apart: a chunk read in place from host memory has its index in device memory.
    __device__ const u32* words_at(i64 c, int column) const { return reinterpret_cast<const u32*>(at(c, column)); }
    __device__ const u32* payload(i64 c) const { return words_at(c, PAYLOAD_START); }
    __device__ const u32* index(i64 c) const { return words_at(c, INDEX_START); }
    // Chunk c's weights (float32, one per edge at its chunk position), null when the run loaded none.
    __device__ const float* weights(i64 c) const { return weighted && at(c, WEIGHTS_START) != ABSENT ? reinterpret_cast<const float*>(at(c, WEIGHTS_START)) : nullptr; }
    __device__ i64 degree(i64 v) const { return indptr[v + 1] - indptr[v]; }
};

// An edge as operators hand it to functors: its position in adj and, when the run loaded
// weights, its weight. A functor that reads either declares `static constexpr bool edges = true`
// (every format then visits ids with their positions; see reads_edges).
struct Edge {
    i64 id;
    const float* w;  // null where the run loaded no weights: every edge weighs 1 (as on the CPU)
    __device__ float weight() const { return w ? *w : 1.0f; }
    // Edge j of a chunk whose edges start at `start`, `w` the chunk's weights (or null).
    __device__ static Edge at(i64 start, const float* w, u32 j) { return Edge{start + j, w ? w + j : nullptr}; }
};

// Kernel parameters that describe the graph, and the struct rebuilt from them inside a kernel
// (flat parameters keep the launch independent of how a CuPy build passes structs).
#define GRAPH_PARAMS const i64 *table, const i64 *indptr, i64 chunk_edges, i64 n_vertices, i64 weighted
#define GRAPH_ARGS Graph{table, indptr, chunk_edges, n_vertices, weighted}

__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }

__device__ __forceinline__ i64 global_warp() { return (i64(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; }

__device__ __forceinline__ i64 warp_count() { return (i64(gridDim.x) * blockDim.x) >> 5; }

// Appends u to a queue with one atomic per group of lanes that call it together.
__device__ __forceinline__ void append(u32* queue, u64* count, u32 u) {
    u32 mask = __activemask();
    int leader = __ffs(mask) - 1;
    u64 base = 0;
    if (lane_id() == leader) base = atomicAdd(count, u64(__popc(mask)));
    base = __shfl_sync(mask, base, leader);
    queue[base + __popc(mask & ((1u << lane_id()) - 1))] = u;
}

// The sum of every lane's x, on every lane, in one fixed order; all 32 lanes must call it.
template <class T>
__device__ __forceinline__ T warp_sum(T x) {
    for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(FULL_MASK, x, d);
    return x;
}

// Adds every lane's x into *total with one atomic per warp; all 32 lanes must call it.
__device__ __forceinline__ void warp_add(u64* total, u64 x) {
    x = warp_sum(x);
    if (lane_id() == 0 && x) atomicAdd(total, x);
}

// Bits [bit, bit + width) of an LSB-first uint32 word string, width <= 32; reads words bit/32
// and bit/32 + 1, which the caller guarantees exist.
__device__ __forceinline__ u32 bits_lsb(const u32* w, u64 bit, u32 width) {
    u64 q = bit >> 5;
    u64 window = (u64(w[q + 1]) << 32) | w[q];
    return u32((window >> (bit & 31)) & ((u64(1) << width) - 1));
}
