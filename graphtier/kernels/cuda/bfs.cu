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

// Every vertex unvisited but the source, which is the first frontier; level sizes and the
// frontier bitmap cleared. One launch instead of a handful of fills.
extern "C" __global__ void bfs_init(int* dist, i64* parent, i64 n, i64 source, u64 source_edges, u32* queue, LevelSizes* sizes, i64 n_sizes, u32* bits, i64 n_bits) {
    i64 stride = i64(gridDim.x) * blockDim.x, m = max(n, max(n_sizes, n_bits));
    for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += stride) {
        if (i < n) {
            dist[i] = i == source ? 0 : -1;
            parent[i] = i == source ? source : -1;
        }
        if (i < n_sizes) sizes[i] = i == 0 ? LevelSizes{1, source_edges, 0, 0} : LevelSizes{};
        if (i < n_bits) bits[i] = 0;
        if (i == 0) queue[0] = u32(source);
    }
}

// sizes[level] describes the level's frontier; the level's kernels fill sizes[level + 1]. Both
// push kernels take the same parameters, so that one argument tuple serves them.
#define PUSH_PARAMS GRAPH_PARAMS, const u32 *frontier, u32 *hubs, u32 *out, LevelSizes *sizes, int *dist, i64 *parent, int level

template <class Format>
__global__ void bfs_push(PUSH_PARAMS) {
    advance_push<Format>(GRAPH_ARGS, frontier, sizes + level, hubs, out, sizes + level + 1, Visit{dist, parent, level + 1});
}

template <class Format>
__global__ void bfs_push_hubs(PUSH_PARAMS) {
    advance_push_hubs<Format>(GRAPH_ARGS, hubs, sizes + level, out, sizes + level + 1, Visit{dist, parent, level + 1});
}

template <class Format>
__global__ void bfs_pull(GRAPH_PARAMS, const u32* frontier_bits, u32* out, LevelSizes* sizes, int* dist, i64* parent, int level) {
    advance_pull<Format>(GRAPH_ARGS, out, sizes + level + 1, Unvisited{dist}, InFrontier{frontier_bits}, Adopt{dist, parent, level + 1});
}

extern "C" __global__ void bfs_pull_heads(const u32* heads, const i64* indptr, i64 n_vertices, const u32* frontier_bits, u32* out, LevelSizes* sizes, int* dist, i64* parent, int level) {
    pull_heads(heads, indptr, n_vertices, out, sizes + level + 1, Unvisited{dist}, InFrontier{frontier_bits}, Adopt{dist, parent, level + 1});
}

// The in-edges that a pull level may read: those of unvisited vertices.
extern "C" __global__ void bfs_pull_demand(const i64* indptr, i64 chunk_edges, i64 n_vertices, const int* dist, u64* demand) {
    pull_demand(indptr, chunk_edges, n_vertices, Unvisited{dist}, demand);
}

// Every decoder of every format, so that nvcc checks each instantiation without a GPU.
#define INSTANTIATE(Format)                                                 \
    template __global__ void bfs_push<Format>(PUSH_PARAMS);                 \
    template __global__ void bfs_push_hubs<Format>(PUSH_PARAMS);            \
    template __global__ void bfs_pull<Format>(GRAPH_PARAMS, const u32*, u32*, LevelSizes*, int*, i64*, int);
FOR_EACH_FORMAT(INSTANTIATE)
