// BFS on the GPU: the functors, and one kernel per operator that applies them to a format.
// The level loop is the driver in graphtier/engine/bfs.py; levels are numbered from 0 at the source.
#include "formats.cuh"
#include "operators.cuh"

struct Visit {  // push: claim an unvisited neighbour
    int* dist;
    i64* parent;
    int next;
    __device__ bool operator()(u32 v, u32 u) const {
        if (dist[u] >= 0 || atomicCAS(dist + u, -1, next) != -1) return false;
        parent[u] = v;
        return true;
    }
};

struct Unvisited {
    const int* dist;
    __device__ bool operator()(u32 u) const { return dist[u] < 0; }
};

struct InFrontier {  // pull: v is a parent when it is in the frontier (a bitmap: 1 MB per 8 M vertices stays in L2)
    const u32* bits;
    __device__ bool operator()(u32, u32 v) const { return (bits[v >> 5] >> (v & 31)) & 1; }
};

struct Adopt {
    int* dist;
    i64* parent;
    int next;
    __device__ void operator()(u32 u, u32 v) const {
        dist[u] = next;
        parent[u] = v;
    }
};

// sizes[level] holds (frontier size, its out-edges); a level's kernel fills sizes[level + 1].
template <class Format>
__global__ void bfs_push(GRAPH_PARAMS, const u32* frontier, u32* out, u64* sizes, int* dist, i64* parent, int level) {
    advance_push<Format>(GRAPH_ARGS, frontier, sizes[2 * level], out, sizes + 2 * (level + 1), Visit{dist, parent, level + 1});
}

template <class Format>
__global__ void bfs_pull(GRAPH_PARAMS, const u32* frontier_bits, u32* out, u64* sizes, int* dist, i64* parent, int level) {
    advance_pull<Format>(GRAPH_ARGS, out, sizes + 2 * (level + 1), Unvisited{dist}, InFrontier{frontier_bits}, Adopt{dist, parent, level + 1});
}

// Every format, so that nvcc checks each instantiation without a GPU.
#define INSTANTIATE(Format)                                                                                                   \
    template __global__ void bfs_push<Format>(GRAPH_PARAMS, const u32*, u32*, u64*, int*, i64*, int);                         \
    template __global__ void bfs_pull<Format>(GRAPH_PARAMS, const u32*, u32*, u64*, int*, i64*, int);
FOR_EACH_FORMAT(INSTANTIATE)
