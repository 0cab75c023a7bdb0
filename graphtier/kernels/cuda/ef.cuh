// ef (EFG's Elias-Fano, docs/formats.md, section ef): source i's sub-list is payload bytes
// [offset_i, offset_{i+1}) = [forward pointers][lower bits][upper bits], bit strings LSB-first;
// element k is x_k = ((select1(k) - k) << l) | lower_k. The local index gives offset_i, l_i and the
// degree n_i (bit-packed records after an 8-byte preamble [wo, wl, wd, 0, quantum]).
//
// EfT<true> decodes warp-parallel, in rounds of 128 bytes of upper bits: lane j takes the 32-bit
// word j of the round, popcounts it, and a shfl_up scan gives the rank of its first one-bit within
// the round. The round's ones are then handed out 32 at a time, one per lane in rank order: lane e
// finds the word holding the round's e-th one by a binary search over the scan (shuffles), selects
// the bit inside that word, and reads its l lower bits directly at bit k l. The rank carries
// across rounds as (done, zeros): ones and zeros of the upper bits before the round, so
// select1(k) - k = zeros + (bit in round - e), all in 32-bit arithmetic.
//
// Why words, not EFG's bytes: a list of n ids has (u >> l) + n < 3 n upper bits (u >> l < 2 n by
// folly's l), so the typical list (n ~ 10-60) fits 1-6 words: one round, one or two batches of 32
// ids, a scan and a search of at most 3 steps (both loops stop at the round's word count), where
// bytes need up to 23 lanes and 5 steps. A round of words covers 1024 bits, ~340-512 ids of a hub,
// so its fixed cost (two loads, popc, scan) is spread over 4x more ids than with bytes, and the
// warp reads 128 contiguous bytes per round. Select within a word is a 5-step popc binary search
// in registers; EFG's 256x8 select-in-byte table in __constant__ memory would serialize when lanes
// read different entries. Handing the ones out in rank order (rather than each lane looping over
// its own word's bits) makes a list's visits one dense batch per 32 ids, as Csr's, so the visits'
// loads and warp-aggregated atomics are issued together.
//
// Ranges (random_access): [lo, hi) may be any part of v's sub-list, as advance_push_hubs passes
// pieces of hubs. A range starting at rank a >= quantum starts from forward pointer
// floor(a / quantum) - 1 (EFG's partial lists, Fig. 6): the upper bits are scanned from just after
// that pointer's element (fewer than quantum ids before a: their rounds are scanned, their
// batches skipped), and the scan stops at the range's end. A whole sub-list (hi - lo = its
// degree) starts at rank 0 and reads no pointer. Ranks and bit positions are 32-bit: a sub-list
// must have fewer than 2^32 upper bits (n < 1.4e9).
//
// EfT<false> is the measurement baseline: lane 0 alone decodes as ef_decode_list does (clear the
// lowest set bit of a 32-bit window), the other lanes wait; with Stop the warp votes every 32 ids.
//
// Bounds (the chunk was validated on the host before upload, as tiering/resident.py does): every
// read below is of aligned 32-bit words of the index or the payload, and each comment says why
// they lie there. Two facts carry them: at least 8 bytes follow the index (the payload's first, in
// the chunk; the index arena copies them too, tiering/scheduler.py), and the payload ends with 8
// zero bytes of slack after the last list (payload_bytes = P + 8), so an aligned pair of words
// whose first byte lies in a list ends at most 7 bytes further, inside the slack. Index and
// payload are read through their own addresses: a chunk read in place from host memory may have
// its index in device memory.
#pragma once
#include "common.cuh"

__host__ __device__ __forceinline__ u32 ef_popc(u32 x) {
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

// Index of the lowest set bit; x != 0.
__host__ __device__ __forceinline__ u32 ef_ctz(u32 x) {
#ifdef __CUDA_ARCH__
    return __ffs(x) - 1;
#else
    return __builtin_ctz(x);
#endif
}

// Index of the highest set bit; x != 0.
__host__ __device__ __forceinline__ u32 ef_msb(u32 x) {
#ifdef __CUDA_ARCH__
    return 31 - __clz(x);
#else
    return 31 - __builtin_clz(x);
#endif
}

// Bits [bit, bit + width) of a word string, 0 <= width <= 56, LSB-first. Reads word bit / 32 and the
// next one, and the one after only when the field reaches into it.
__host__ __device__ __forceinline__ u64 ef_field(const u32* w, u64 bit, u32 width) {
    if (width == 0) return 0;
    u64 q = bit >> 5;
    u32 s = u32(bit & 31);
    u64 x = ((u64(w[q + 1]) << 32) | w[q]) >> s;
    if (s + width > 64) x |= u64(w[q + 2]) << (64 - s);
    return x & ((u64(1) << width) - 1);
}

// Bits [bit, bit + width) of the chunk, 1 <= width <= 32: words bit / 32 and bit / 32 + 1.
__host__ __device__ __forceinline__ u32 ef_bits(const u32* w, u64 bit, u32 width) {
    u64 q = bit >> 5;
    u64 x = ((u64(w[q + 1]) << 32) | w[q]) >> (bit & 31);
    return u32(x & ((u64(1) << width) - 1));
}

// The 4 bytes at chunk byte `byte` as one LSB-first word: aligned words byte / 4 and byte / 4 + 1.
__host__ __device__ __forceinline__ u32 ef_word32(const u32* w, u64 byte) {
    u64 q = byte >> 2;
    return u32(((u64(w[q + 1]) << 32) | w[q]) >> (8 * (byte & 3)));
}

// Position of the s-th (from 0) set bit of x; s < popc(x). Branch-free popc binary search.
__host__ __device__ __forceinline__ u32 ef_select32(u32 x, u32 s) {
    u32 p = 0, c;
    c = ef_popc(x & 0xffffu);
    if (s >= c) { s -= c; x >>= 16; p += 16; }
    c = ef_popc(x & 0xffu);
    if (s >= c) { s -= c; x >>= 8; p += 8; }
    c = ef_popc(x & 0xfu);
    if (s >= c) { s -= c; x >>= 4; p += 4; }
    c = ef_popc(x & 0x3u);
    if (s >= c) { s -= c; x >>= 2; p += 2; }
    return p + (s >= (x & 1u) ? 1u : 0u);
}

// One sub-list, located from its chunk's local index; positions count from the payload's start.
struct EfList {
    u64 fbyte;   // payload byte where the list (its forward pointers) starts
    u64 lbit;    // payload bit where the lower bits start
    u64 ubyte;   // payload byte where the upper bits start
    u32 ubytes;  // bytes of upper bits: ceil(((u >> l) + n) / 8), 0 for an empty list
    u32 n;       // ids in the list: the record's degree
    u32 l;       // low-bit width, <= 31 for 32-bit ids
    u32 q;       // forward-pointer quantum (0: none)
    u32 fw;      // bytes per forward pointer
};

// Local source i's list, from the chunk's local index x (8-byte aligned), as kernels/cpu/ef.py's
// ef_neighbors finds it: record i = (offset, l, degree) at index bit 64 + i (wo + wl + wd), the
// list ending at the next record's offset.
__host__ __device__ __forceinline__ EfList ef_locate(const u32* x, i64 i) {
    // The 8-byte preamble: index words 0 and 1.
    u32 p0 = x[0], q = x[1];
    u32 wo = p0 & 0xffu, wl = (p0 >> 8) & 0xffu, wd = (p0 >> 16) & 0xffu;
    // The four fields lie inside the index's packed bits (record i and offset_{i+1}, which
    // exists for every local source); ef_field reads at most one word past a field's first
    // word unless the field reaches further, and 8 bytes follow the index.
    u64 rec = 64 + u64(i) * (wo + wl + wd);
    u64 start = ef_field(x, rec, wo);
    u32 l = u32(ef_field(x, rec + wo, wl));
    u32 n = u32(ef_field(x, rec + wo + wl, wd));
    u64 end = ef_field(x, rec + wo + wl + wd, wo);
    u32 nf = (q != 0 && n >= q) ? n / q : 0;  // forward pointers
    u32 fw = n < 128u ? 1 : n < 32768u ? 2 : n < 0x80000000u ? 4 : 8;
    EfList L;
    L.fbyte = start;
    u64 lstart = L.fbyte + u64(nf) * fw;
    L.lbit = lstart * 8;
    L.ubyte = lstart + (u64(l) * n + 7) / 8;
    L.ubytes = n ? u32(end - L.ubyte) : 0;
    L.n = n;
    L.l = l;
    L.q = q;
    L.fw = fw;
    return L;
}

// Word (32 bits) of the upper bits at byte off < ubytes, the bytes past the list masked off. The
// aligned pair ef_word32 reads starts at or before the list's byte off and ends at most 7 bytes
// after it, so at most 6 bytes past the list's end: inside the slack.
__host__ __device__ __forceinline__ u32 ef_upper_word(const u32* w, const EfList& L, u32 off) {
    u32 x = ef_word32(w, L.ubyte + off);
    u32 left = L.ubytes - off;
    if (left < 4) x &= (1u << (8 * left)) - 1;
    return x;
}

// The l lower bits of element k < n. The field lies in the lower section, before the upper bits,
// and ef_bits reads the word of its first bit and the next: at most 7 bytes past a byte of the list.
__host__ __device__ __forceinline__ u32 ef_lower(const u32* w, const EfList& L, u32 k) {
    return L.l ? ef_bits(w, L.lbit + u64(k) * L.l, L.l) : 0u;
}

// The lower bits of a list as the whole warp reads them, a 128-byte line at a time and each line
// once: lane j holds words base + j (cur) and base + 32 + j (nxt) of the payload, lines aligned,
// and each lane's field is put together from them with shuffles. Read in place over PCIe, every
// line a load instruction touches crosses the bus, and ef_lower's pair of loads per lane touches
// the lines of 32 fields twice. (On an H100 its effect could not be told apart from the
// scheduler's: benchmarks/results/ooc_bfs-nvidia-h100-2026-11-24-notes.md.) Only words
// [first, end) of the list are read (its bytes and the word after, inside the payload's slack);
// the others read as 0.
struct EfLowerWindow {
    const u32* w;
    i64 first, end;
    i64 base;  // window start, in words from w; first < base + 64 never holds before the first use
    u32 cur, nxt;

    __device__ EfLowerWindow(const u32* w, const EfList& L)
        : w(w), first(i64(L.fbyte >> 2)), end(i64((L.ubyte + L.ubytes + 3) >> 2) + 1), base(i64(L.fbyte >> 2) - 128), cur(0), nxt(0) {}

    __device__ u32 load(i64 q) const { return q >= first && q < end ? w[q] : 0u; }

    __device__ u32 word(i64 q) const {  // word base + q, 0 <= q < 64; every lane calls it
        u32 c = __shfl_sync(FULL_MASK, cur, u32(q) & 31), n = __shfl_sync(FULL_MASK, nxt, u32(q) & 31);
        return q & 32 ? n : c;
    }

    // Bits [bit, bit + width) for each lane, 1 <= width <= 31, where lane i's bit is bit0 + i width
    // (bit0 is lane 0's): they span words q0 .. q0 + 32 at most, q0 = bit0 / 32, which the window
    // holds once q0 - base < 32. Every lane calls it, with the same bit0.
    __device__ u32 field(i64 bit0, i64 bit, u32 width) {
        const i64 q0 = bit0 >> 5;  // bit0 < 0: lanes before a batch's first rank idle (their fields unused)
        if (q0 < base || q0 >= base + 64) {  // the first batch, or ranks skipped: load both lines
            base = q0 - i64((u64(reinterpret_cast<u64>(w) >> 2) + u64(q0)) & 31);
            cur = load(base + lane_id());
            nxt = load(base + 32 + lane_id());
        } else if (q0 >= base + 32) {  // slide by one line
            base += 32;
            cur = nxt;
            nxt = load(base + 32 + lane_id());
        }
        const i64 q = (bit >> 5) - base;
        const u32 lo = word(q), hi = word(q + 1);
        return u32((((u64(hi) << 32) | lo) >> (bit & 31)) & ((u64(1) << width) - 1));
    }
};

// Where a scan for rank a < n starts: at upper bit `bit` = 8 off + shift, with `done` ones (ranks
// 0 .. done - 1) before it and zeros = 8 off - done (mod 2^32; the shift bits are masked off and
// count as zeros). Rank 0 at bit 0, or, for a >= q, just after element i = j q - 1 of forward
// pointer j - 1 = floor(a / q) - 1 (it exists: j <= n / q), whose one-bit is at pointer + i.
struct EfSeek {
    u32 off, shift, done, zeros;
};
__host__ __device__ __forceinline__ EfSeek ef_seek(const u32* w, const EfList& L, u32 a) {
    u32 done = 0, bit = 0;
    if (L.q && a >= L.q) {
        u32 j = a / L.q;
        done = j * L.q;
        // Pointer j - 1: fw bytes in the forward section (ids are 32-bit, so the low 4 hold it);
        // ef_bits reads 8 bytes from the word of its first byte.
        bit = ef_bits(w, (L.fbyte + u64(j - 1) * L.fw) * 8, L.fw < 4 ? 8 * L.fw : 32) + done;
    }
    EfSeek s;
    s.off = bit >> 3;
    s.shift = bit & 7;
    s.done = done;
    s.zeros = 8 * s.off - done;
    return s;
}

// Largest power of two below nw (0 for nw <= 1): the first step of a binary search over nw lanes.
__host__ __device__ __forceinline__ u32 ef_search_top(u32 nw) { return nw > 1 ? 1u << ef_msb(nw - 1) : 0u; }

template <bool Parallel = true>
struct EfT {
    static constexpr bool random_access = true;  // any [lo, hi) inside a sub-list, from a forward pointer
    static constexpr bool split_hubs = true;
    static constexpr i64 peek_edges = 4;
    static constexpr i64 lane_edges = 32;

    // Calls visit(u, j) for the ids u at chunk-local positions j in [lo, hi) of v's sub-list in
    // chunk c (rank k of the list is at lo - a + k). All 32 lanes call it with the same
    // arguments; with Stop, returns true after the first batch of 32 ids in which a visit
    // returned true. Without Parallel, lane 0 decodes alone.
    template <bool Stop, bool Positions, class Visit>
    __device__ static bool for_each(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        if (!Parallel) {
            bool hit = lane_id() == 0 && for_each_lane<Stop, Positions>(g, c, v, lo, hi, visit);
            return Stop && __any_sync(FULL_MASK, hit);
        }
        return walk<Stop, Positions, false>(g, c, v, lo, hi, visit);
    }

    // The same ids by batches of 32 ranks: every lane calls visit(u, j, in) for each batch,
    // converged, `in` saying whether its rank is one of [lo, hi) (then u and j are its id and
    // position); lane order is list order. Always the warp's walk, whatever Parallel says.
    template <bool Positions, class Visit>
    __device__ static void for_each_batch(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        walk<false, Positions, true>(g, c, v, lo, hi, visit);
    }

    // The same, by one lane alone: it walks the upper bits a word at a time from the seek point,
    // as ef_decode_list does; while k < b a next one exists (the n-th lies in the list's last
    // byte), so each word it loads starts inside the list.
    template <bool Stop, bool Positions, class Visit>
    __device__ static bool for_each_lane(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        const u32* w = g.payload(c);
        u32 a, b;
        const EfList L = locate(g, c, v, lo, hi, a, b);
        const EfSeek s = ef_seek(w, L, a);
        u32 off = s.off;
        u32 word = s.done < b ? ef_upper_word(w, L, off) & (~0u << s.shift) : 0u;
        for (u32 k = s.done; k < b; ++k) {
            while (word == 0) word = ef_upper_word(w, L, off += 4);
            u32 h = 8 * off + ef_ctz(word) - k;
            word &= word - 1;
            if (k >= a && visit((h << L.l) | ef_lower(w, L, k), u32(lo - a + k)) && Stop) return true;
        }
        return false;
    }

  private:
    // for_each's decoding by the warp (Batches: for_each_batch's visits).
    template <bool Stop, bool Positions, bool Batches, class Visit>
    __device__ static bool walk(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        const u32* w = g.payload(c);
        u32 a, b;
        const EfList L = locate(g, c, v, lo, hi, a, b);
        const EfSeek s = ef_seek(w, L, a);
        const u32 lane = lane_id();
        u32 done = s.done, zeros = s.zeros;  // ones (ranks) and zeros of the upper bits before the round
        EfLowerWindow lower(w, L);
        // With positions, batches start where the weights' 128-byte lines do (chunks start on a
        // line in every tier), lanes before a batch's first rank idle: a warp reads whole lines
        // of weights. `line`: the place in its line of rank 0's weight.
        const u32 line = Positions && g.weights(c) ? u32((g.at(c, WEIGHTS_START) - g.at(c, CHUNK_START)) / 4 + lo - a) & 31u : 0u;
        for (u32 off = s.off; done < b && off < L.ubytes; off += 128) {
            u32 nb = L.ubytes - off < 128 ? L.ubytes - off : 128;  // bytes in this round
            u32 nw = (nb + 3) / 4;                                  // words in this round
            u32 word = lane < nw ? ef_upper_word(w, L, off + 4 * lane) : 0u;
            if (lane == 0 && off == s.off) word &= ~0u << s.shift;  // ranks < s.done
            u32 incl = ef_popc(word);
            // Inclusive scan over lanes [0, nw): after steps d < nw, lane j's incl sums the
            // counts of lanes (j - 2 top, j], so lanes < 2 top - 1 (all a search probes) hold
            // exact prefixes (lanes >= nw add zeros).
            for (u32 d = 1; d < nw; d <<= 1) {
                u32 x = __shfl_up_sync(FULL_MASK, incl, d);
                if (lane >= d) incl += x;
            }
            u32 total = __shfl_sync(FULL_MASK, incl, nw - 1);
            u32 top = ef_search_top(nw);
            // Batches of 32 ones, from the one holding rank a to the one holding rank b - 1.
            const i32 lead = Positions ? i32((line + done) & 31u) : 0;  // rank done's place in its line
            for (i32 t = i32(((a > done ? a - done : 0u) + lead) & ~31u) - lead; t < i32(total) && i64(done) + t < i64(b); t += 32) {
                const i32 e = t + i32(lane);  // this lane's one, by rank within the round (< 0: idle)
                const i64 k = i64(done) + e;  // and in the list
                u32 low = L.l ? lower.field(i64(L.lbit) + (i64(done) + t) * L.l, i64(L.lbit) + k * L.l, L.l) : 0u;
                // The word holding it: o = the number of lanes with incl <= e; the last probe
                // that succeeded is incl[o - 1], the ones before word o.
                u32 o = 0, before = 0;
                for (u32 step = top; step; step >>= 1) {
                    u32 p = __shfl_sync(FULL_MASK, incl, o + step - 1);
                    if (i32(p) <= e) {
                        o += step;
                        before = p;
                    }
                }
                u32 ow = __shfl_sync(FULL_MASK, word, o);
                const bool in = e >= 0 && e < i32(total) && k >= a && k < b;
                u32 id = 0;
                if (in) id = (zeros + (32 * o + ef_select32(ow, u32(e) - before) - u32(e))) << L.l | low;  // select1(k) - k, then the low bits
                if constexpr (Batches) {
                    visit(id, u32(lo - a + k), in);
                } else {
                    bool hit = in && visit(id, u32(lo - a + k));
                    if (Stop && __any_sync(FULL_MASK, hit)) return true;
                }
            }
            done += total;
            zeros += 8 * nb - total;
        }
        return false;
    }

    // v's list in chunk c, and the ranks [a, b) that chunk positions [lo, hi) hold: the sub-list
    // starts at chunk position max(indptr[v] - c E, 0).
    __device__ static EfList locate(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, u32& a, u32& b) {
        const EfList L = ef_locate(g.index(c), v - g.at(c, FIRST_SRC));
        a = 0, b = u32(hi - lo);
        if (b != L.n) {
            i64 first = g.indptr[v] - c * g.chunk_edges;
            a = u32(lo - (first > 0 ? first : 0));
            b += a;
        }
        return L;
    }
};

using Ef = EfT<>;
using EfSerial = EfT<false>;
