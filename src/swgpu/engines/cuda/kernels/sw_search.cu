// Smith-Waterman database search scoring (affine gaps, substitution matrix).
//
// One query against every database sequence; only the best local score of
// each pair is produced (no traceback).
//
// Recurrences (Gotoh, textbook local):
//   E(i,j) = max(E(i,j-1) - ext, H(i,j-1) - open)
//   F(i,j) = max(F(i-1,j) - ext, H(i-1,j) - open)
//   H(i,j) = max(0, H(i-1,j-1) + M[q_i][t_j], E(i,j), F(i,j))
//
// Stored values are shifted up by c = open + 1 (H' = H + c, likewise E, F):
// the zero of H is c, so H' - open >= 1 and the 16-bit pair H' - open is one
// 32-bit subtraction without a borrow between the halves, which the compiler
// issues on the FMA pipe (IMAD) beside the four DPX instructions of a cell on
// the ALU pipe. A cell is
//   x  = max(H'diag + S, E')            __viaddmax_s16x2
//   H' = max(x, F', c)                  __vimax3_s16x2
//   o  = H' - open                      32-bit subtraction
//   E' = max(E' - ext, o, 0)            __viaddmax_s16x2_relu   (also F')
// E and F are never below -open (E >= H - open >= -open), so clamping E' and
// F' at 0 (E, F at -c) changes nothing; it only keeps them from wrapping in
// the closing columns of a sequence (query pairs, below).
//
// Layout and parallelisation
// --------------------------
// * Database sequences are sorted by length (host side) and paired: pair k
//   holds two sequences of (nearly) equal length, interleaved as 16-bit
//   codes (low byte: sequence a, high byte: sequence b). Shorter ones are
//   padded with the pad letter (profile value NEG <= 0, which cannot raise
//   any score because pad columns only lie to the right of real ones).
// * The 16-bit kernel keeps the two sequences of a pair in the two halves of
//   one 32-bit register (s16x2) and uses the Hopper DPX instructions
//   (__viaddmax_s16x2, __vimax_s16x2_relu, __vimax3_s16x2, ...).
// * A group of G threads (G = 2..32, a power of two) scores one pair. Thread
//   t of the group holds R consecutive query rows (H and E in registers) and
//   sweeps the database columns one step behind thread t-1 (wavefront); the
//   H/F values of its last row go to thread t+1 through warp shuffles.
// * A tile of T = G*R query rows is one pass. Longer queries take several
//   passes; the last row of a pass (H and F per column) goes to a global
//   boundary buffer (so neither the query nor the database length is bounded
//   by registers) and is read back by the next pass. The lead thread of a
//   group fetches residue codes and boundary values 4 columns at a time with
//   cp.async into a per-group shared ring, one block of 4 columns ahead.
// * The query profile tile of a pass (score of every query row of the tile
//   against every letter) is staged in shared memory -- per warp, or per
//   block (BP) for large tiles -- laid out so that each thread reads its R
//   rows for a letter with R/8 conflict-free 16-byte loads.
// * Measured on an H100 the kernel is bound by the ALU pipe (the DPX
//   instructions) and shared-memory bandwidth; large groups (G = 16, 32) keep
//   the profile loads of a warp within one or two letter rows.
// * Query pairs (QP): with several queries, the two halves of a register
//   hold two queries instead of two database sequences; a group scores
//   database sequences against both, so the substitution scores of a step are
//   read straight from the profile (one letter, both queries per 32-bit word)
//   and no byte permutation is needed. Each half runs its own stream of query
//   rows: queries one after another, each padded to whole segments of R rows
//   (the rows of one thread in one pass). A thread whose segment starts a
//   query ignores the H/F coming from above (the previous query's last rows).
// * QP groups stream a chunk of consecutive database sequences (similar
//   lengths) as one run of columns, so the wavefront fills and drains once
//   per chunk and pass instead of once per sequence. Every sequence ends with
//   at least two closing pad columns, coded as two extra letters after the
//   pad letter (pad + 1, and pad + 2 for the very last column) whose profile
//   rows are those of the pad letter: there the gap costs (from a per-warp
//   table indexed by letter) are 32767, so H, E and F are all zero after them
//   and the next sequence starts clean. At the last column each thread folds
//   its running maximum into the scores of that sequence with atomicMax and
//   clears it.
// * Overflow: with all scores at most 32767 - max(M) - c, no 16-bit addition
//   can wrap; the host re-scores every score above that exactly, with the
//   32-bit ("wide") instantiation on the sequence-pair layout. A wrapped half
//   cannot disturb the other: H' >= c in both halves (signed), so H' - open
//   never borrows across.

#define SWP_FULL 0xffffffffu
#define SWP_NEG (-32768)
#ifndef SWP_NWARPS
#define SWP_NWARPS 2
#endif
// Column steps unrolled per loop iteration (2 lets the compiler keep H and E
// in place without register moves, at a few more registers; sequence pairs
// hold twice the profile words, so they unroll only up to R = 24).
#ifndef SWP_UNROLL_MAX_R
#define SWP_UNROLL_MAX_R 24
#endif
#ifndef SWP_UNROLL_MAX_R_QP
#define SWP_UNROLL_MAX_R_QP 32
#endif
#define SWP_STEP_UNROLL(R, WIDE, QP) \
    ((!(WIDE) && (R) <= ((QP) ? SWP_UNROLL_MAX_R_QP : SWP_UNROLL_MAX_R)) ? 2 : 1)
// Register budget per thread of each variant (no spills; more warps per SM).
#ifdef SWP_REGS_FIXED
#define SWP_REGS(R, WIDE) (SWP_REGS_FIXED)
#else
#define SWP_REGS(R, WIDE) ((WIDE) ? 128 : ((R) <= 16 ? 96 : 128))
#endif

#include "lanes.cuh"
#include "sw_search_args.cuh"
using namespace lanes;

// Asynchronous global -> shared copies (cp.async), so that prefetched
// boundary values and residue codes occupy no registers.
__device__ __forceinline__ void cp_async4(void* smem_dst, const void* gsrc)
{
    const unsigned int d = (unsigned int)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cp_async8(void* smem_dst, const void* gsrc)
{
    const unsigned int d = (unsigned int)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cp_async16(void* smem_dst, const void* gsrc)
{
    const unsigned int d = (unsigned int)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Boundary record of one column: H and F of the last row of a tile.
// P2: 2 words (8 bytes) per column; W2: 4 words (16 bytes).
template <class V> struct BndWords { static constexpr int N = 2; };
template <> struct BndWords<W2> { static constexpr int N = 4; };

__device__ __forceinline__ void bnd_get(const unsigned int* s, P2& h, P2& f)
{
    const uint2 x = *reinterpret_cast<const uint2*>(s);
    h.v = x.x; f.v = x.y;
}
__device__ __forceinline__ void bnd_get(const unsigned int* s, W2& h, W2& f)
{
    const int4 x = *reinterpret_cast<const int4*>(s);
    h.a = x.x; h.b = x.y; f.a = x.z; f.b = x.w;
}
__device__ __forceinline__ void bnd_put(unsigned int* g, P2 h, P2 f)
{
    *reinterpret_cast<uint2*>(g) = make_uint2(h.v, f.v);
}
__device__ __forceinline__ void bnd_put(unsigned int* g, W2 h, W2 f)
{
    *reinterpret_cast<int4*>(g) = make_int4(h.a, h.b, f.a, f.b);
}

// Substitution score of query row r (of a thread's tile) from the profile
// words. Sequence pairs: word r/2 holds rows (r, r+1) for letter a (wa) and
// letter b (wb). Query pairs (QP): word r holds row r of both queries.
template <int r, bool QP>
__device__ __forceinline__ P2 subst_row(const unsigned int* wa, const unsigned int* wb, P2)
{
    P2 s;
    if constexpr (QP) s.v = wa[r];
    else s.v = __byte_perm(wa[r / 2], wb[r / 2], (r & 1) ? 0x7632 : 0x5410);
    return s;
}
template <int r, bool QP>
__device__ __forceinline__ W2 subst_row(const unsigned int* wa, const unsigned int* wb, W2)
{
    W2 s;
    if (r & 1) { s.a = ((int)wa[r / 2]) >> 16; s.b = ((int)wb[r / 2]) >> 16; }
    else { s.a = ((int)(wa[r / 2] << 16)) >> 16; s.b = ((int)(wb[r / 2] << 16)) >> 16; }
    return s;
}

// Running maximum of two new rows (the score of the pair is the maximum of H).
__device__ __forceinline__ P2 running_max(P2 mx, P2 a, P2 b) { return max3(mx, a, b); }
__device__ __forceinline__ W2 running_max(W2 mx, W2 a, W2 b) { return max3(mx, a, b); }

// One column of a thread's R rows. The term max(Hdiag + S, E) of row r + 1
// is formed before row r's H overwrites its register (it is that row's
// diagonal), so the loop carries H and E in place without register moves.
// hprev: H of the row above the tile at the previous column (the diagonal of
// row 0); f: F entering row 0, on return F leaving row R-1.
template <int R, class V, int r, bool QP>
struct Rows {
    __device__ static __forceinline__ void run(V (&H)[R], V (&E)[R], V& x, V& f, V& mx,
                                               const unsigned int* wa, const unsigned int* wb,
                                               const V gop, const V next, const V base, const V zero)
    {
        V xn = zero;
        if (r + 1 < R) xn = add_max(H[r], subst_row<(r + 1 < R ? r + 1 : r), QP>(wa, wb, zero), E[r + 1 < R ? r + 1 : r]);
        const V h = max3(x, f, base);               // max(Hdiag + S, E, F, 0)
        const V o = sub_nb(h, gop);                 // H - open (no borrow: h >= c > open)
        E[r] = add_max_relu(E[r], next, o);         // E for the next column
        f = add_max_relu(f, next, o);               // F for the next row
        if (r & 1) mx = running_max(mx, H[r - (r & 1)], h);
        H[r] = h;
        x = xn;
        Rows<R, V, r + 1, QP>::run(H, E, x, f, mx, wa, wb, gop, next, base, zero);
    }
};
template <int R, class V, bool QP>
struct Rows<R, V, R, QP> {
    __device__ static __forceinline__ void run(V (&)[R], V (&)[R], V&, V&, V&, const unsigned int*,
                                               const unsigned int*, const V, const V, const V, const V) {}
};

// Lead thread of a group: bring the residue codes and incoming boundary of
// the 4 columns from col into shared memory (cp.async), or pad codes / the
// zero boundary (bz: H = c, F = 0 as stored) where the sequence (pair) has no
// such columns. Codes: 16 bits per
// column for sequence pairs, 8 bits for query pairs (QP).
template <int BW, bool QP>
__device__ __forceinline__ void fill_block(const int col, const int Lk, const bool rd,
                                           unsigned char* ring, const unsigned char* csrc,
                                           unsigned int* bslot, const unsigned int* bsrc, const unsigned int pad4,
                                           const uint4 bz)
{
    constexpr int CB = QP ? 1 : 2;  // bytes per column
    unsigned char* slot = ring + (col & 63) * CB;
    if (col < Lk) {
        if (QP) cp_async4(slot, csrc + col);
        else cp_async8(slot, csrc + 2 * (long long)col);
    } else {
        if (QP) *reinterpret_cast<unsigned int*>(slot) = pad4;
        else *reinterpret_cast<uint2*>(slot) = make_uint2(pad4, pad4);
    }
    if (rd && col < Lk) {
#pragma unroll
        for (int x = 0; x < BW; ++x) cp_async16(bslot + 4 * x, bsrc + (long long)col * BW + 4 * x);
    } else {
#pragma unroll
        for (int x = 0; x < BW; ++x) *reinterpret_cast<uint4*>(bslot + 4 * x) = bz;
    }
}

template <int G, int R, bool QP>
struct Geo {
    static constexpr int RPU = QP ? 4 : 8;        // query rows per 16-byte profile unit
    static constexpr int U = G * R / RPU;         // units per letter per tile
    static constexpr int C = R / RPU;             // units per thread per letter
    // Row stride of the shared profile (in 16-byte units), chosen so that the
    // groups of one quarter warp start on different banks where possible.
    static constexpr int RS = (G >= 8) ? U : (U + ((G - (U % 8)) % 8 + 8) % 8);
};

// Shared memory (in 16-byte units): the profile tile (nlet x RS) and the
// gap-cost table (64 letters x 8 bytes), one per warp, or one per block when
// BP, then per group a ring of 64 residue codes (8 units) and a double buffer
// of incoming boundary values (2 blocks of 4 columns), padded to an odd size
// so that groups start on different banks.
template <int G, bool WIDE>
struct WarpSmem {
    static constexpr int NG = 32 / G;                   // groups per warp
    static constexpr int CODE_RING = 64;                // columns
    static constexpr int CODE_UNITS = CODE_RING * 2 / 16;
    static constexpr int BND_UNITS = 2 * 4 * (WIDE ? 4 : 2) * 4 / 16;
    static constexpr int GROUP_UNITS = CODE_UNITS + BND_UNITS + 1;
    static constexpr int GAP_UNITS = 64 * 8 / 16;
    static constexpr int EXTRA = NG * GROUP_UNITS;
};

// Shared memory of one block in 16-byte units (the carving at the top of
// sw_search follows the same terms); the host asks for it through
// sw_search_smem below instead of repeating these constants.
template <int G, int R, bool WIDE, bool BP, bool QP>
__device__ __forceinline__ long long swp_smem_units(const int nlet)
{
    typedef WarpSmem<G, WIDE> WS;
    const long long PU = (long long)nlet * Geo<G, R, QP>::RS + WS::GAP_UNITS;
    return BP ? PU + (long long)SWP_NWARPS * WS::EXTRA : (long long)SWP_NWARPS * (PU + WS::EXTRA);
}

template <int G, int R, bool WIDE, bool BP, bool QP>
__global__ void sw_search_smem(const int nlet, long long* out)
{
    out[0] = 16 * swp_smem_units<G, R, WIDE, BP, QP>(nlet);
}

// Main search kernel; its arguments are the fields of SwpArgs
// (sw_search_args.cuh). The profile's letter nlet - 1 (pairs; nlet - 3 for QP)
// is the pad letter and rows past a query hold NEG; pass p uses units
// [p * U, (p + 1) * U) of every letter (pairs: 8 int16 rows per unit; QP: 4
// rows of both queries). Pairs: pair k occupies columns [pair_off[k],
// pair_off[k] + pair_len[k]), 16 bits per column. QP: 8 bits per column
// (letters; pad + 1 and pad + 2 close a sequence); chunk k is columns
// [chunk_cols[2k], chunk_cols[2k + 1]) and starts with sequence
// chunk_first[k] (sequences stored one after another, in order). Groups are
// pairs (chunks) first .. first + ngroups - 1. QP segment flags: bit 0/1 =
// half a/b starts a query there (zero H/F from above), bit 2/3 = half a/b
// holds a query. Scores are zeroed beforehand for QP (atomicMax). In 16 bits
// a score above 32767 - max(M) - (open + 1) may have wrapped: the host
// re-scores those.
template <int G, int R, bool WIDE, bool BP, bool QP>
__global__ void __maxnreg__(SWP_REGS(R, WIDE))
sw_search(const SwpArgs a)
{
    const uint4* __restrict__ gprof = a.prof;
    const unsigned char* __restrict__ codes = a.codes;
    const int* __restrict__ porig = a.orig;
    unsigned int* __restrict__ bnd = a.bnd;
    const int* __restrict__ seg = a.seg;
    const int* __restrict__ sq = a.slot;
    int* __restrict__ scores = a.scores;
    const long long qstride = a.qstride;
    const int nlet = a.nlet, npass = a.npass, ngroups = a.ngroups, first = a.first, nunits = a.nunits;
    const int gap_open = a.gap_open, gap_ext = a.gap_ext, pad = a.pad;
    typedef typename LaneT<WIDE>::T V;
    typedef WarpSmem<G, WIDE> WS;
    constexpr int U = Geo<G, R, QP>::U;
    constexpr int C = Geo<G, R, QP>::C;
    constexpr int RS = Geo<G, R, QP>::RS;
    constexpr int BW = BndWords<V>::N;  // boundary words per column
    constexpr int STEP_UNROLL = SWP_STEP_UNROLL(R, WIDE, QP);
    constexpr int NW = QP ? R : R / 2;  // profile words per thread per step (wa; wb for pairs)
    static_assert(R % 8 == 0 && G >= 2 && G <= 32 && (G & (G - 1)) == 0, "bad tile");
    static_assert(!(QP && WIDE), "query pairs run in 16 bits only");

    extern __shared__ uint4 smem[];
    const int lane = threadIdx.x & 31;
    const int wib = threadIdx.x >> 5;
    const int t = lane & (G - 1);
    const int gl = lane / G;  // group within the warp
    const long long g0 = ((long long)blockIdx.x * SWP_NWARPS + wib) * (32 / G);
    // Warp-private profile: a warp without work leaves. Block-shared profile
    // (BP): every warp takes part in the block's barriers, so only a block
    // without work leaves.
    if (BP) {
        if ((long long)blockIdx.x * SWP_NWARPS * (32 / G) >= ngroups) return;
    } else {
        if (g0 >= ngroups) return;
    }
    const long long gi = g0 + gl;

    int k = -1, Lk = 0, u0 = 0;
    long long cb = 0;
    if (gi < ngroups) {
        k = first + (int)gi;
        if (QP) { cb = a.chunk_cols[2 * k]; Lk = (int)(a.chunk_cols[2 * k + 1] - cb); u0 = a.chunk_first[k]; }
        else { cb = a.pair_off[k]; Lk = a.pair_len[k]; }
    }
    const int Lw = (int)__reduce_max_sync(SWP_FULL, (unsigned int)Lk);
    const int nblk = (Lw + G + 2) >> 2;  // steps: Lw + G - 1, rounded up to 4

    const int PU = nlet * RS + WS::GAP_UNITS;  // units of a profile tile and its gap table
    uint4* sw = BP ? smem : smem + wib * (PU + WS::EXTRA);
    const uint4* sp = sw + t;
    uint2* gtab = reinterpret_cast<uint2*>(sw + nlet * RS);  // gap costs per letter (QP)
    uint4* gs = BP ? smem + PU + (wib * WS::NG + gl) * WS::GROUP_UNITS : sw + PU + gl * WS::GROUP_UNITS;
    unsigned char* ring = reinterpret_cast<unsigned char*>(gs);
    unsigned int* bring = reinterpret_cast<unsigned int*>(gs + WS::CODE_UNITS);

    // Every stored value is shifted up by c = open + 1 (see the top of the file).
    const int c = gap_open + 1;
    V gopen, next, zero, base, rsub, radd;
    splat(gopen, gap_open);
    splat(next, -gap_ext);
    splat(zero, 0);
    splat(base, c);
    splat(rsub, 32767);  // closing columns: o = H' - 32767 <= 0 ...
    splat(radd, -32767); // ... and E', F' - 32767 <= 0
    if constexpr (QP) {
        // gap costs per letter: the two closing letters reset (see above);
        // the barriers before the first columns order these writes
        for (int i = BP ? (int)threadIdx.x : lane; i < 64; i += BP ? SWP_NWARPS * 32 : 32)
            gtab[i] = (i >= nlet - 2 && i < nlet) ? make_uint2(rsub.v, radd.v) : make_uint2(gopen.v, next.v);
    }
    const unsigned int lastc = (unsigned int)(nlet - 1);  // QP: the last column of a sequence
    // boundary of "no row above": H' = c, F' = 0 (BW words per column)
    const unsigned int cw = ((unsigned int)c & 0xffffu) * 0x10001u;
    const uint4 bz = (BW == 2) ? make_uint4(cw, 0u, cw, 0u) : make_uint4((unsigned int)c, (unsigned int)c, 0u, 0u);
    const unsigned int pad1 = (unsigned int)pad & 0xffu;
    const unsigned int pad4 = QP ? pad1 * 0x01010101u : (pad1 | (pad1 << 8)) * 0x00010001u;
    const bool lead = (t == 0);
    const unsigned char* cp = codes + (QP ? cb : 2 * cb);
    const unsigned int* bsrc = bnd + cb * BW;
    unsigned int* bdst = bnd + (cb - (G - 1)) * BW;  // indexed by step: column s - (G - 1)

    V mx = base;
    for (int p = 0; p < npass; ++p) {
        const int si = p * G + t;
        const int fl = QP ? seg[si] : 0;
        // Stage this tile's query profile into the warp's shared memory.
        if (BP) __syncthreads(); else __syncwarp();
        {
            const uint4* gp = gprof + (long long)p * U;
            const int i0 = BP ? (int)threadIdx.x : lane;
            const int di = BP ? SWP_NWARPS * 32 : 32;
            // destination order (consecutive threads, consecutive 16-byte units):
            // unit u = c * G + tt holds rows tt * R + RPU * c .. of the tile
            for (int idx = i0; idx < nlet * U; idx += di) {
                const int let = idx / U, u = idx - let * U;
                const int tt = u % G, c = u / G;
                sw[let * RS + u] = gp[(long long)let * qstride + tt * C + c];
            }
        }
        if (BP) __syncthreads();
        const bool rd = lead && p > 0 && (fl & 3) != 3;
        // QP: the halves that start a query here ignore the H/F from above.
        const unsigned int keep = ((fl & 1) ? 0u : 0xffffu) | ((fl & 2) ? 0u : 0xffff0000u);
        // the last thread writes the boundary of columns 0 .. Lk - 1 (but not in the last pass)
        const unsigned int wlim = (t == G - 1 && p + 1 < npass) ? (unsigned int)Lk : 0u;
        // QP: score offsets of the two halves' queries, the sequence in hand
        int uidx = u0;
        if (QP) mx = base;
        if (lead) {
            // Columns < 0 (and all not yet fetched) read as pad.
            if (QP) {
                *reinterpret_cast<unsigned int*>(ring + 4) = pad4;
#pragma unroll
                for (int x = 1; x < WS::CODE_RING / 16; ++x)
                    reinterpret_cast<uint4*>(ring)[x] = make_uint4(pad4, pad4, pad4, pad4);
            } else {
                *reinterpret_cast<uint2*>(ring + 8) = make_uint2(pad4, pad4);
#pragma unroll
                for (int x = 1; x < WS::CODE_RING / 8; ++x)
                    reinterpret_cast<uint4*>(ring)[x] = make_uint4(pad4, pad4, pad4, pad4);
            }
            fill_block<BW, QP>(0, Lk, rd, ring, cp, bring, bsrc, pad4, bz);
        }
        cp_async_commit();

        V H[R], E[R];
#pragma unroll
        for (int r = 0; r < R; ++r) { H[r] = base; E[r] = zero; }
        V hprev = base, hl = base, fo = zero;

        for (int b = 0; b < nblk; ++b) {
            const int s0 = b << 2;
            // Prefetch block b + 1, then wait for block b.
            if (lead)
                fill_block<BW, QP>(s0 + 4, Lk, rd, ring, cp, bring + ((b + 1) & 1) * 4 * BW, bsrc, pad4, bz);
            cp_async_commit();
            cp_async_wait1();
            __syncwarp();
            const unsigned int* bcur = bring + (b & 1) * 4 * BW;

#pragma unroll STEP_UNROLL
            for (int u = 0; u < 4; ++u) {
                const int s = s0 + u;
                // H and F of the previous thread's last row at this thread's
                // column (the lead thread: the previous tile's boundary).
                V hup = shfl_up(hl, G);
                V fup = shfl_up(fo, G);
                {
                    V hb, fb;
                    bnd_get(bcur + u * BW, hb, fb);
                    hup = lead ? hb : hup;
                    fup = lead ? fb : fup;
                    if constexpr (QP) { hup = blend(hup, keep, base); fup = mask(fup, keep); }
                }
                unsigned int wa[NW], wb[QP ? 1 : NW];
                unsigned int cd = 0;  // QP: the letter
                V gop = gopen, nxt = next;
                if constexpr (QP) {
                    cd = ring[(s - t) & (WS::CODE_RING - 1)];
                    // the two closing letters use gap costs of 32767: after the
                    // first, E' and F' are 0 (the clamp) or 1 (a saturated other
                    // half), so after the second H' = c and E' = F' = 0, and the next
                    // sequence starts clean without clearing 2R registers.
                    const uint2 gc = gtab[cd];
                    gop.v = gc.x;
                    nxt.v = gc.y;
                    const uint4* pa = sp + cd * RS;
#pragma unroll
                    for (int c = 0; c < C; ++c) {
                        const uint4 A = pa[c * G];
                        wa[4 * c] = A.x; wa[4 * c + 1] = A.y; wa[4 * c + 2] = A.z; wa[4 * c + 3] = A.w;
                    }
                } else {
                    const unsigned int cd = reinterpret_cast<const unsigned short*>(ring)[(s - t) & (WS::CODE_RING - 1)];
                    const uint4* pa = sp + (cd & 0xffu) * RS;
                    const uint4* pb = sp + (cd >> 8) * RS;
#pragma unroll
                    for (int c = 0; c < C; ++c) {
                        const uint4 A = pa[c * G];
                        const uint4 B = pb[c * G];
                        wa[4 * c] = A.x; wa[4 * c + 1] = A.y; wa[4 * c + 2] = A.z; wa[4 * c + 3] = A.w;
                        wb[4 * c] = B.x; wb[4 * c + 1] = B.y; wb[4 * c + 2] = B.z; wb[4 * c + 3] = B.w;
                    }
                }
                V x = add_max(hprev, subst_row<0, QP>(wa, wb, zero), E[0]);
                hprev = hup;
                V f = fup;
                Rows<R, V, 0, QP>::run(H, E, x, f, mx, wa, wb, gop, nxt, base, zero);
                hl = H[R - 1];
                fo = f;
                if (QP && cd == lastc) {
                    // last column of a sequence: fold this thread's maxima into its scores
                    if (fl & 12) {
                        int sa, sb;
                        scores_of(mx, sa, sb);
                        sa -= c; sb -= c;
                        // (the query slots are read here, once per sequence, to spare registers)
                        const long long so = porig[uidx];
                        if (fl & 4) atomicMax(scores + (long long)sq[2 * si] * nunits + so, sa);
                        if (fl & 8) atomicMax(scores + (long long)sq[2 * si + 1] * nunits + so, sb);
                    }
                    mx = base;
                    ++uidx;
                }
                if ((unsigned int)(s - (G - 1)) < wlim) bnd_put(bdst + (long long)s * BW, hl, fo);
            }
        }
        cp_async_wait_all();

    }

    if constexpr (!QP) {
#pragma unroll
        for (int o = 1; o < G; o <<= 1) mx = max_relu(mx, shfl_xor(mx, o, G));
        if (lead && k >= 0) {
            int sa, sb;
            scores_of(mx, sa, sb);
            sa -= c; sb -= c;
            scores[porig[2 * k]] = sa;
            const int ib = porig[2 * k + 1];
            if (ib >= 0) scores[ib] = sb;
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

// Pair-interleaved database codes: one block per pair (from the residues of
// the unit codes; the closing letters past a sequence become pad).
extern "C" __global__ void swp_build_pairs(const unsigned char* __restrict__ res,
                                           const long long* __restrict__ sa, const long long* __restrict__ sb,
                                           const int* __restrict__ la, const int* __restrict__ lb,
                                           const long long* __restrict__ poff, const int* __restrict__ plen,
                                           const int npairs, const int pad, unsigned short* __restrict__ codes)
{
    const int k = blockIdx.x;
    if (k >= npairs) return;
    const long long o = poff[k];
    const int L = plen[k], na = la[k], nb = lb[k];
    const unsigned char* A = res + sa[k];
    const unsigned char* B = res + sb[k];
    for (int j = threadIdx.x; j < L; j += blockDim.x) {
        const unsigned int a = j < na ? (unsigned int)A[j] : (unsigned int)pad;
        const unsigned int b = j < nb ? (unsigned int)B[j] : (unsigned int)pad;
        codes[o + j] = (unsigned short)(a | (b << 8));
    }
}

// One sequence per unit (query-pair layout): unit k copies res[src[k] ..
// + len[k]) to codes[uoff[k] ..] and pads it to ulen[k] >= len[k] + 2
// columns; its last two columns are the closing letters pad + 1 and (the very
// last) pad + 2.
extern "C" __global__ void swp_build_units(const unsigned char* __restrict__ res, const long long* __restrict__ src,
                                           const int* __restrict__ len, const long long* __restrict__ uoff,
                                           const int* __restrict__ ulen, const int nunits, const int pad,
                                           unsigned char* __restrict__ codes)
{
    const int k = blockIdx.x;
    if (k >= nunits) return;
    const unsigned char* A = res + src[k];
    unsigned char* D = codes + uoff[k];
    const int L = len[k], UL = ulen[k];
    for (int j = threadIdx.x; j < UL; j += blockDim.x) {
        unsigned int c = j < L ? A[j] : (unsigned int)pad;
        if (j >= UL - 2) c = (unsigned int)pad + 1u;  // the two closing columns (UL >= L + 2)
        if (j == UL - 1) c = (unsigned int)pad + 2u;  // the last one
        D[j] = (unsigned char)c;
    }
}

// Query profile: prof[c * qpad + i] = M[q[i]][c] (query code first), NEG for
// the pad letter c == K and for rows i >= Q.
extern "C" __global__ void swp_build_profile(const int* __restrict__ M, const int K,
                                             const unsigned char* __restrict__ q, const int Q,
                                             const long long qpad, short* __restrict__ prof)
{
    const long long n = (long long)(K + 1) * qpad;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
         idx += (long long)gridDim.x * blockDim.x) {
        const int c = (int)(idx / qpad);
        const long long i = idx - (long long)c * qpad;
        int v = SWP_NEG;
        if (c < K && i < Q) v = M[(int)q[i] * K + c];
        prof[idx] = (short)v;
    }
}

// The tile shapes, the one list of them: (G threads per pair, R query rows
// per thread, BP one profile tile per block). The engine reads these lines
// (swgpu.engines.cuda.search_tiling) and builds only the shapes it launches;
// offline builds (nvcc --resource-usage checks) instantiate them all below.
#define SWP_VARIANTS(X) \
    X(8, 16, false) X(16, 16, false) X(16, 24, true) X(16, 32, true) X(32, 16, true) X(32, 24, true) X(32, 32, true)
// The shape of the exact 32-bit re-run of overflowing pairs.
#define SWP_WIDE_VARIANT(X) X(32, 16, true)

#ifndef __CUDACC_RTC__
#define SWP_INSTANTIATE(G, R, W, BP, QP) \
    template __global__ void sw_search<G, R, W, BP, QP>(const SwpArgs); \
    template __global__ void sw_search_smem<G, R, W, BP, QP>(const int, long long*);
#define SWP_NARROW(G, R, BP) SWP_INSTANTIATE(G, R, false, BP, false) SWP_INSTANTIATE(G, R, false, BP, true)
#define SWP_WIDE(G, R, BP) SWP_INSTANTIATE(G, R, true, BP, false)
SWP_VARIANTS(SWP_NARROW)
SWP_WIDE_VARIANT(SWP_WIDE)
#endif
