// cgr (GCGT's Compressed Graph Representation), read in place. docs/formats.md (`cgr`) has the
// bits; graphtier/codecs/cgr.py (decode_sublist) is the reference decoder.
//
// A sub-list is an interval area, then a residual area. Each area is cut into segments of fixed
// bit length (the last one longer), and each segment decodes on its own from the source id u:
//   interval area  γ(S_I - 1)  { γ(c) { γ(start gap) γ(len - min_interval) } x c }
//   residual area  γ(S_R - 1)  { γ(c) { ζk(residual gap) } x c }
// (no γ(S_I - 1) when interval_segment_bits is 0: one unsegmented interval area).
// Segment s starts at p0 + s * segment length, p0 being the bit after γ(S - 1). So a warp gives
// segments to lanes (GCGT's two-phase traversal and residual segmentation):
//   phase 1: lane l decodes interval segments l, l + 32, ...; in each round every lane decodes one
//            interval, and the warp visits the ids of all of them, 32 at a time (cgr_expand);
//   phase 2: the lane that decoded the last interval segment ends where the residual area starts;
//            lane l then decodes residual segments l, l + 32, ..., one residual per lane per round.
// CgrT<false> has lane 0 decode the whole list alone (cgr_serial), as the CPU decoder does;
// CgrT<true, false> keeps phase 1 and has lane 0 walk every residual segment.
//
// Positions: these walks visit intervals before residuals, so an id's place in the sorted list
// (which the weights follow) is not known where it is decoded; visit(u, j) gets j = 0. A
// functor that reads its edge (a weight) gets the Positions walk instead: one lane merges the
// interval and residual streams in order (cgr_merged), as the CPU decoder does, and counts.
//
// Everything below the local index is __host__ __device__ and takes its warp primitives from a
// class W (CgrDeviceWarp on the GPU), so a host test can run the same code on an emulated warp.
//
// Loads stay inside the chunk without a bounds check because the host validates every chunk
// before upload (codecs/cgr.py, decode_lists): the index is exactly what the encoder writes, every
// code is well formed and inside its sub-list, and the payload is ceil(T / 32) + 1 words for a
// T-bit stream (one spare zero word). The one rule the reader needs: it loads word q only when
// some bit at or after 32 (q - 1) belongs to the code it is reading. Such a bit is below T, so
// q <= ceil(T / 32): at worst the spare word.
#pragma once
#include "common.cuh"

#define CGR_HD __host__ __device__ __forceinline__

// ---------------------------------------------------------------------------------------------
// The local index: the only code that knows its layout (codecs/cgr.py: sublist_bits; docs/formats.md:
// "Finding a sub-list").
//   word 0: zeta_k | min_interval << 8 | flags << 16 | anchor bytes (4 or 8) << 24
//   word 1: segment_bits | interval_segment_bits << 16
//   word 2: field bits w | log2 group (5) << 8        word 3: 0
//   from word 4: one anchor (absolute bit offset, 1 or 2 words) per group of 32 entries, entries
//   being the n_local + 1 bit offsets; then every entry's offset from its anchor, w bits each,
//   LSB-first, and a spare word.

struct CgrParams {
    u32 k;     // ζk of the residuals (1: γ)
    u32 mi;    // min_interval: stored interval lengths are len - mi
    u32 inc;   // 1, or 0 in duplicates mode: residual j is R[j-1] + gap + inc
    u32 seg;   // residual segment bits
    u32 iseg;  // interval segment bits; 0: one unsegmented interval area
};

CGR_HD CgrParams cgr_params(const u32* index) {
    u32 a = index[0], b = index[1];
    return {a & 0xFF, (a >> 8) & 0xFF, (a >> 16) & 1 ? 0u : 1u, b & 0xFFFF, b >> 16};
}

// Entry i (0..n_local): its group's anchor plus its w-bit field. In bounds: anchor i >> 5 exists
// for every entry; a field ends at or before the spare word after the last field, so f[1] is at
// worst that spare; f[2] is read only for a field that spans three words (w > 32, 8-byte
// anchors), and then holds its last bits.
CGR_HD u64 cgr_bit_offset(const u32* index, u32 anchor_words, u32 w, const u32* fields, u64 i) {
    const u32* a = index + 4 + (i >> 5) * anchor_words;
    u64 anchor = anchor_words == 2 ? (u64(a[1]) << 32 | a[0]) : a[0];
    if (w == 0) return anchor;
    u64 p = i * w;
    const u32* f = fields + (p >> 5);
    u32 s = u32(p & 31);
    u64 x = (u64(f[1]) << 32 | f[0]) >> s;
    if (s + w > 64) x |= u64(f[2]) << (64 - s);
    return anchor + (w < 64 ? x & ((u64(1) << w) - 1) : x);
}

// The payload bit where local source `local`'s sub-list starts (of n_local sources). Its end is
// not needed: the decoder knows the list's length and every segment's extent.
CGR_HD u64 cgr_index_start(const u32* index, u64 n_local, u64 local) {
    u32 anchor_words = (index[0] >> 24) / 4;
    u32 w = index[2] & 0xFF;
    const u32* fields = index + 4 + anchor_words * ((n_local + 32) >> 5);  // after ceil((n_local + 1) / 32) anchors
    return cgr_bit_offset(index, anchor_words, w, fields, local);
}

// The same for chunk c of the graph; n_local comes from the header's last_src, the 8 bytes that
// end 16 bytes before the index (header bytes 24..31; the index arena copies the header too), as
// codecs/cgr.py's decode_chunk_sublist reads it. The parameter words 0..2 are inside the index's
// 16-byte block.
__device__ __forceinline__ u64 cgr_sublist_start(const Graph& g, i64 c, i64 local) {
    const u32* index = g.index(c);
    u64 n_local = (u64(index[-3]) << 32 | index[-4]) - u64(g.at(c, FIRST_SRC)) + 1;
    return cgr_index_start(index, n_local, u64(local));
}

// ---------------------------------------------------------------------------------------------
// The bit reader: a 64-bit buffer over the MSB-first stream, topped up one word at a time. Each
// word load is a 64-bit funnel shift of two words (nvcc emits SHF); codes are found with clz.

CGR_HD u32 cgr_clz64(u64 x) {
#ifdef __CUDA_ARCH__
    return __clzll(x);
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

struct CgrBits {
    const u32* next = nullptr;  // the next word to load
    u64 buf = 0;                // the stream from the read position on; its top nb bits are loaded
    u32 nb = 0;                 // 1..64 between calls, 33..64 after fill()

    // Reads from bit p < end of the sub-list: words p/32 and p/32 + 1, both at most ceil(T / 32).
    CGR_HD void seek(const u32* words, u64 p) {
        next = words + (p >> 5);
        buf = (u64(next[0]) << 32 | next[1]) << (p & 31);
        nb = 64 - u32(p & 31);
        next += 2;
    }
    CGR_HD u64 pos(const u32* words) const { return u64(next - words) * 32 - nb; }

    // At least 33 bits loaded. Called only with a bit of the current code still unread, at
    // position p < T; the loaded word is (p + nb) / 32 <= p / 32 + 1 <= ceil(T / 32).
    CGR_HD void fill() {
        if (nb <= 32) {
            buf |= u64(*next++) << (32 - nb);
            nb += 32;
        }
    }
    CGR_HD void skip(u32 n) {  // n <= 32, after fill(): leaves nb >= 1
        buf <<= n;
        nb -= n;
    }
    CGR_HD u64 take(u32 n) {  // 1 <= n <= 32, after fill()
        u64 v = buf >> (64 - n);
        skip(n);
        return v;
    }
    CGR_HD u64 bits(u32 n) {  // 1 <= n <= 64 bits as an integer
        u64 v = 0;
        if (n > 32) {
            fill();
            v = take(n - 32) << 32;
            n = 32;
        }
        fill();
        return v | take(n);
    }
    CGR_HD u32 zeros() {  // consumes the zeros before the next 1, and returns how many
        u32 z = 0;
        fill();
        for (; u32(buf >> 32) == 0; z += 32) {
            skip(32);
            fill();
        }
        u32 c = cgr_clz64(buf);
        skip(c);
        return z + c;
    }

    // γ(x): L zeros, then x + 1 in L + 1 bits. Codes of up to 31 bits (x + 1 < 2**16) take one fill.
    CGR_HD u64 gamma() {
        fill();
        u32 z = cgr_clz64(buf);
        if (z < 16) return take(2 * z + 1) - 1;
        z = zeros();
        return bits(z + 1) - 1;
    }
    // GCGT's ζk(x), k >= 2: h zeros and a 1, then x + 1 in (h + 1) k bits; γ for k = 1.
    CGR_HD u64 zeta(u32 k) {
        if (k == 1) return gamma();
        fill();
        u32 h = cgr_clz64(buf), n = (h + 1) * (k + 1);
        if (n <= 32) return (take(n) & ((u64(1) << (n - h - 1)) - 1)) - 1;
        h = zeros();
        fill();
        skip(1);
        return bits((h + 1) * k) - 1;
    }
};

// WebGraph's nat2int from u, in 32 bits: the true id is below 2**32, so its low 32 bits are exact.
CGR_HD u32 cgr_nat2int(u64 z, u32 u) { return u + (u32(z >> 1) ^ (0u - u32(z & 1))); }

// An area at bit p: returns its segment count S and sets p0 to segment 0's bit. With seglen 0
// (an unsegmented interval area) there is no count: one segment at p.
CGR_HD u32 cgr_area(const u32* words, u64 p, u32 seglen, u64& p0) {
    if (seglen == 0) {
        p0 = p;
        return 1;
    }
    CgrBits in;
    in.seek(words, p);
    u32 segments = u32(in.gamma()) + 1;
    p0 = in.pos(words);
    return segments;
}

// One lane's walk through segments [s, s_end) of an area, item by item.
struct CgrCursor {
    CgrBits in;
    u32 s, s_end;       // the next segment to open, one past the last
    u32 left = 0;       // items left in the open segment
    bool fresh = true;  // the next item is its segment's first: coded from u
    u32 prev = 0;       // the last residual, or the last id of the last interval

    CGR_HD CgrCursor(u32 s, u32 s_end) : s(s), s_end(s_end) {}

    // Steps to the next item; false when the lane's segments are done. A segment opened here
    // exists (s < S), so its first bit is below the sub-list's end.
    CGR_HD bool next(const u32* words, u64 p0, u32 seglen) {
        while (left == 0) {
            if (s >= s_end) return false;
            in.seek(words, p0 + u64(s++) * seglen);
            left = u32(in.gamma());
            fresh = true;
        }
        left--;
        return true;
    }
    // Intervals: the first of a segment stores int2nat(first - u), later ones first - prev_last - 2.
    CGR_HD void interval(u32 u, u32 mi, u32& first, u32& len) {
        u64 g = in.gamma();
        len = u32(in.gamma()) + mi;
        first = fresh ? cgr_nat2int(g, u) : prev + 2 + u32(g);
        prev = first + len - 1;
        fresh = false;
    }
    // Residuals: the first of a segment stores int2nat(R - u), later ones R[j] - R[j-1] - inc.
    CGR_HD u32 residual(u32 u, u32 k, u32 inc) {
        u64 g = in.zeta(k);
        prev = fresh ? cgr_nat2int(g, u) : prev + u32(g) + inc;
        fresh = false;
        return prev;
    }
};

// ---------------------------------------------------------------------------------------------
// The list walks. visit(u, j) -> bool, j the id's chunk position or 0 (above); with Stop, true
// ends the walk.

// One thread decodes everything, interval segments then residual segments.
template <bool Stop, class Visit>
CGR_HD bool cgr_serial(const u32* words, u64 start, u32 u, const CgrParams& pr, Visit& visit) {
    u64 p0;
    CgrCursor itv(0, cgr_area(words, start, pr.iseg, p0));
    while (itv.next(words, p0, pr.iseg)) {
        u32 first, len;
        itv.interval(u, pr.mi, first, len);
        for (u32 i = 0; i < len; i++)
            if (visit(first + i, 0u) && Stop) return true;
    }
    // The last interval segment was read to its end, where the residual area starts.
    u64 r0 = itv.in.pos(words);
    CgrCursor res(0, cgr_area(words, r0, pr.seg, p0));
    while (res.next(words, p0, pr.seg))
        if (visit(res.residual(u, pr.k, pr.inc), 0u) && Stop) return true;
    return false;
}

// One thread visits the list in ascending order, each id with its chunk position j0 + rank:
// the interval area is walked once to find where the residual area starts, then intervals and
// residuals are merged (a residual equal to an interval's id first, as codecs/cgr.py writes
// duplicates).
template <bool Stop, class Visit>
CGR_HD bool cgr_merged(const u32* words, u64 start, u32 u, const CgrParams& pr, u32 j0, Visit& visit) {
    u64 p0, q0;
    CgrCursor skip(0, cgr_area(words, start, pr.iseg, p0));
    for (u32 first, len; skip.next(words, p0, pr.iseg);) skip.interval(u, pr.mi, first, len);
    CgrCursor itv(0, cgr_area(words, start, pr.iseg, p0));
    CgrCursor res(0, cgr_area(words, skip.in.pos(words), pr.seg, q0));
    u32 first = 0, left = 0, r = 0;
    bool more = res.next(words, q0, pr.seg);
    if (more) r = res.residual(u, pr.k, pr.inc);
    for (u32 j = j0;; j++) {
        while (left == 0 && itv.next(words, p0, pr.iseg)) itv.interval(u, pr.mi, first, left);
        u32 id;
        if (more && (left == 0 || r <= first)) {
            id = r;
            more = res.next(words, q0, pr.seg);
            if (more) r = res.residual(u, pr.k, pr.inc);
        } else if (left) {
            id = first++;
            left--;
        } else {
            return false;
        }
        if (visit(id, j) && Stop) return true;
    }
}

// The warp visits the intervals (first, len) that its lanes hold (len 0: none), 32 ids a round:
// slot j of the round belongs to the lane whose prefix sum of lengths covers it, found by a
// binary search over the lanes' inclusive sums.
template <class W, bool Stop, class Visit>
CGR_HD bool cgr_expand(u32 first, u32 len, Visit& visit) {
    u32 lane = W::lane();
    u32 end = len;  // this lane's ids are slots [end - len, end)
    for (u32 d = 1; d < 32; d <<= 1) {
        u32 y = W::shfl_up(end, d);
        if (lane >= d) end += y;
    }
    u32 total = W::shfl(end, 31);
    u32 base = first - (end - len);  // slot j of this lane is id base + j (mod 2**32)
    for (u32 j0 = 0; j0 < total; j0 += 32) {
        u32 j = j0 + lane, owner = 0;
        for (u32 b = 16; b; b >>= 1)
            if (W::shfl(end, owner + b - 1) <= j) owner += b;
        u32 id = W::shfl(base, owner) + j;
        bool hit = j < total && visit(id, 0u);
        if (Stop && W::any(hit)) return true;
    }
    return false;
}

template <class W>
CGR_HD u64 cgr_shfl64(u64 x, u32 src) {
    return u64(W::shfl(u32(x >> 32), src)) << 32 | W::shfl(u32(x), src);
}

// Phase 1: the interval area at bit `start`, where each lane decodes its own segments; the warp
// visits the intervals only with `expand` (else only the last 32 segments are decoded, to find
// the end). Sets r0 to the bit after the area, where the residual area starts.
template <class W, bool Stop, class Visit>
CGR_HD bool cgr_intervals(const u32* words, u64 start, u32 u, const CgrParams& pr, Visit& visit, bool expand, u64& r0) {
    u32 lane = W::lane();
    u64 p0;
    u32 segments = cgr_area(words, start, pr.iseg, p0);
    for (u32 s = lane, group = 0; group < segments; s += 32, group += 32) {
        if (!expand && segments - group > 32) continue;
        CgrCursor itv(s, s < segments ? s + 1 : s);
        for (;;) {
            u32 first = 0, len = 0;
            bool more = itv.next(words, p0, pr.iseg);
            if (more) itv.interval(u, pr.mi, first, len);
            if (!W::any(more)) break;
            if (expand && cgr_expand<W, Stop>(first, len, visit)) return true;
        }
        if (segments - group <= 32) r0 = cgr_shfl64<W>(itv.in.pos(words), segments - 1 - group);
    }
    return false;
}

// Phase 2: the residual area at bit r0, in groups of 32 segments, lane l decoding segment l of a
// group: groups piece, piece + pieces, ... (so that `pieces` warps share one hub's area). Without
// SegmentLanes lane 0 walks every segment (piece 0 of 1 only).
template <class W, bool Stop, bool SegmentLanes, class Visit>
CGR_HD bool cgr_residuals(const u32* words, u64 r0, u32 u, const CgrParams& pr, Visit& visit, u32 piece, u32 pieces) {
    u32 lane = W::lane();
    u64 p0;
    u32 segments = cgr_area(words, r0, pr.seg, p0);
    u32 step = SegmentLanes ? 32 * pieces : segments, group = SegmentLanes ? 32 * piece : 0;
    for (u32 s = group + (SegmentLanes ? lane : (lane ? segments : 0)); group < segments; s += step, group += step) {
        CgrCursor res(s, s >= segments ? s : SegmentLanes ? s + 1 : segments);
        for (;;) {
            bool more = res.next(words, p0, pr.seg);
            if (!W::any(more)) break;
            bool hit = more && visit(res.residual(u, pr.k, pr.inc), 0u);
            if (Stop && W::any(hit)) return true;
        }
    }
    return false;
}

// GCGT's two-phase traversal; with SegmentLanes, lanes share the residual segments, else lane 0
// walks them all. Piece `piece` of `pieces` visits the intervals (piece 0) and its residual
// segment groups.
template <class W, bool Stop, bool SegmentLanes, class Visit>
CGR_HD bool cgr_warp(const u32* words, u64 start, u32 u, const CgrParams& pr, Visit& visit, u32 piece = 0, u32 pieces = 1) {
    u64 r0 = 0;
    if (cgr_intervals<W, Stop>(words, start, u, pr, visit, piece == 0, r0)) return true;
    return cgr_residuals<W, Stop, SegmentLanes>(words, r0, u, pr, visit, piece, pieces);
}

// Source u's sub-list at bits [start, end) of the payload `words`, by the whole warp.
template <class W, bool Stop, bool WarpCentric, bool SegmentLanes, class Visit>
CGR_HD bool cgr_walk(const u32* words, u64 start, u32 u, const CgrParams& pr, Visit& visit) {
    if (WarpCentric) return cgr_warp<W, Stop, SegmentLanes>(words, start, u, pr, visit);
    bool hit = false;
    if (W::lane() == 0) hit = cgr_serial<Stop>(words, start, u, pr, visit);
    if (Stop) return W::any(hit);
    W::sync();
    return false;
}

struct CgrDeviceWarp {
    __device__ static u32 lane() { return threadIdx.x & 31; }
    __device__ static bool any(bool p) { return __any_sync(FULL_MASK, p); }
    __device__ static u32 shfl(u32 x, u32 src) { return __shfl_sync(FULL_MASK, x, src); }
    __device__ static u32 shfl_up(u32 x, u32 d) { return __shfl_up_sync(FULL_MASK, x, d); }
    __device__ static void sync() { __syncwarp(); }
};

template <bool WarpCentric = true, bool SegmentLanes = true>
struct CgrT {
    static constexpr bool random_access = false;  // a sub-list decodes only as a whole...
    static constexpr bool split_hubs = WarpCentric && SegmentLanes;  // ...or by residual segment groups
    static constexpr i64 peek_edges = 0;
    // Without WarpCentric every list is decoded by one lane (thread-centric), as GCGT's baseline.
    static constexpr i64 lane_edges = WarpCentric ? 32 : i64(1) << 62;

    // As Csr::for_each; [lo, hi) is the whole sub-list of v in chunk c (never empty), so its
    // bits are found in the index and hi - lo is not needed. With Positions lane 0 walks the
    // list in order (cgr_merged), the others wait.
    template <bool Stop, bool Positions, class Visit>
    __device__ static bool for_each(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        u64 start = cgr_sublist_start(g, c, v - g.at(c, FIRST_SRC));
        if (Positions) {
            bool hit = lane_id() == 0 && cgr_merged<Stop>(g.payload(c), start, u32(v), cgr_params(g.index(c)), u32(lo), visit);
            if (Stop) return __any_sync(FULL_MASK, hit);
            __syncwarp();
            return false;
        }
        return cgr_walk<CgrDeviceWarp, Stop, WarpCentric, SegmentLanes>(g.payload(c), start, u32(v), cgr_params(g.index(c)), visit);
    }

    // split_hubs: piece p of `pieces` (one per PIECE_EDGES edges of v's sub-list in chunk c)
    // visits the intervals with p = 0, and every pieces-th group of 32 residual segments from
    // group p on. Never with Positions (the operators keep such hubs whole).
    template <bool Stop, class Visit>
    __device__ static bool for_each_piece(const Graph& g, i64 c, i64 v, i64 piece, i64 pieces, Visit&& visit) {
        u64 start = cgr_sublist_start(g, c, v - g.at(c, FIRST_SRC));
        return cgr_warp<CgrDeviceWarp, Stop, true>(g.payload(c), start, u32(v), cgr_params(g.index(c)), visit, u32(piece), u32(pieces));
    }

    template <bool Stop, bool Positions, class Visit>
    __device__ static bool for_each_lane(const Graph& g, i64 c, i64 v, i64 lo, i64 hi, Visit&& visit) {
        u64 start = cgr_sublist_start(g, c, v - g.at(c, FIRST_SRC));
        if (Positions) return cgr_merged<Stop>(g.payload(c), start, u32(v), cgr_params(g.index(c)), u32(lo), visit);
        return cgr_serial<Stop>(g.payload(c), start, u32(v), cgr_params(g.index(c)), visit);
    }
};
using Cgr = CgrT<>;
using CgrThread = CgrT<false>;
using CgrOneLane = CgrT<true, false>;
