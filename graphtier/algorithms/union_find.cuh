// Union-find on the GPU over `parent` pointers that always lead to a smaller vertex, so a root is
// its component's smallest vertex (connected components' and Boruvka's, cc.cu and mst.cu).
#pragma once

constexpr u32 NO_ROOT = 0xFFFFFFFFu;  // hook's answer when v and u are one component already

// x's root, halving the path on the way (ECL-CC's intermediate pointer jumping: racing writers
// only ever store an ancestor).
__device__ __forceinline__ u32 find(u32* parent, u32 x) {
    u32 cur = parent[x];
    if (cur != x) {
        u32 next, prev = x;
        while (cur > (next = parent[cur])) {
            parent[prev] = next;
            prev = cur;
            cur = next;
        }
    }
    return cur;
}

// Joins the components of v and u: the larger root goes under the smaller, by compare-and-swap,
// again from the new roots whenever another thread hooked one first. Returns the root hooked
// (exactly one caller hooks each), or NO_ROOT when there was nothing to join.
__device__ __forceinline__ u32 hook(u32* parent, u32 v, u32 u) {
    u32 a = find(parent, v), b = find(parent, u);
    while (a != b) {
        if (a > b) {
            u32 t = a;
            a = b;
            b = t;
        }
        u32 old = atomicCAS(parent + b, b, a);
        if (old == b) return b;
        b = find(parent, old);
        a = find(parent, a);
    }
    return NO_ROOT;
}

struct Init {
    u32* parent;
    __device__ void operator()(u32 v) const { parent[v] = v; }
};

struct Compress {
    u32* parent;
    __device__ void operator()(u32 v) const { parent[v] = find(parent, v); }
};
