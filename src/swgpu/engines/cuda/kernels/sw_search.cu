// Smith-Waterman database search scoring (affine gaps, substitution matrix).
//
// One query against every database sequence; only the best local score of
// each pair is produced (no traceback).
//
// Recurrences (Gotoh, textbook local):
//   E(i,j) = max(E(i,j-1) - ext, H(i,j-1) - open)
//   F(i,j) = max(F(i-1,j) - ext, H(i-1,j) - open)
//   H(i,j) = max(0, H(i-1,j-1) + M[q_i][t_j], E(i,j), F(i,j))
// E and F are kept clamped at 0 (max(x, 0)); this leaves every H unchanged
// because H is itself a max with 0, and keeps all values non-negative.
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
// * Overflow: with all scores at most thresh = 32767 - max(M), no 16-bit
//   addition can wrap; a pair whose 16-bit maximum exceeds thresh is listed
//   and re-scored exactly by the 32-bit ("wide") instantiation.

#define SWP_FULL 0xffffffffu
#define SWP_NEG (-16384)
#ifndef SWP_NWARPS
#define SWP_NWARPS 2
#endif
// Column steps unrolled per loop iteration (2 lets the compiler keep H and E
// in place without register moves, at a few more registers).
#ifndef SWP_STEP_UNROLL
#define SWP_STEP_UNROLL(R, WIDE) (((R) <= 24 && !(WIDE)) ? 2 : 1)
#endif
// Register budget per thread of each variant (no spills; more warps per SM).
#ifdef SWP_REGS_FIXED
#define SWP_REGS(R, WIDE) (SWP_REGS_FIXED)
#else
#define SWP_REGS(R, WIDE) ((WIDE) ? 128 : ((R) <= 16 ? 96 : 128))
#endif

#include "lanes.cuh"
using namespace lanes;

// Substitution scores of two consecutive query rows from profile words:
// wa = rows (r, r+1) against letter a, wb = the same rows against letter b.
__device__ __forceinline__ void subst(unsigned int wa, unsigned int wb, P2& s0, P2& s1)
{
    s0.v = __byte_perm(wa, wb, 0x5410);
    s1.v = __byte_perm(wa, wb, 0x7632);
}
__device__ __forceinline__ void subst(unsigned int wa, unsigned int wb, W2& s0, W2& s1)
{
    s0.a = ((int)(wa << 16)) >> 16; s0.b = ((int)(wb << 16)) >> 16;
    s1.a = ((int)wa) >> 16;         s1.b = ((int)wb) >> 16;
}

// Asynchronous global -> shared copies (cp.async), so that prefetched
// boundary values and residue codes occupy no registers.
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
// words: word r/2 holds rows (r, r+1) for letter a (wa) and letter b (wb).
template <int r>
__device__ __forceinline__ P2 subst_row(const unsigned int* wa, const unsigned int* wb, P2)
{
    P2 s;
    s.v = __byte_perm(wa[r / 2], wb[r / 2], (r & 1) ? 0x7632 : 0x5410);
    return s;
}
template <int r>
__device__ __forceinline__ W2 subst_row(const unsigned int* wa, const unsigned int* wb, W2)
{
    W2 s;
    if (r & 1) { s.a = ((int)wa[r / 2]) >> 16; s.b = ((int)wb[r / 2]) >> 16; }
    else { s.a = ((int)(wa[r / 2] << 16)) >> 16; s.b = ((int)(wb[r / 2] << 16)) >> 16; }
    return s;
}

// One column of a thread's R rows. The term max(Hdiag + S, E) of row r + 1
// is formed before row r's H overwrites its register (it is that row's
// diagonal), so the loop carries H and E in place without register moves.
// hprev: H of the row above the tile at the previous column (the diagonal of
// row 0); f: F entering row 0, on return F leaving row R-1.
template <int R, class V, int r>
struct Rows {
    __device__ static __forceinline__ void run(V (&H)[R], V (&E)[R], V& x, V& f, V& mx,
                                               const unsigned int* wa, const unsigned int* wb,
                                               const V nopen, const V next, const V zero)
    {
        V xn = zero;
        if (r + 1 < R) xn = add_max(H[r], subst_row<(r + 1 < R ? r + 1 : r)>(wa, wb, zero), E[r + 1 < R ? r + 1 : r]);
        const V h = max_relu(x, f);                 // max(Hdiag + S, E, F, 0)
        const V o = add_max_relu(h, nopen, zero);   // max(H - open, 0)
        E[r] = add_max(E[r], next, o);              // E for the next column
        f = add_max(f, next, o);                    // F for the next row
        if (r & 1) mx = max3(mx, H[r - (r & 1)], h);
        H[r] = h;
        x = xn;
        Rows<R, V, r + 1>::run(H, E, x, f, mx, wa, wb, nopen, next, zero);
    }
};
template <int R, class V>
struct Rows<R, V, R> {
    __device__ static __forceinline__ void run(V (&)[R], V (&)[R], V&, V&, V&, const unsigned int*,
                                               const unsigned int*, const V, const V, const V) {}
};

// Lead thread of a group: bring the residue codes and incoming boundary of
// the 4 columns from col into shared memory (cp.async), or pad codes / zero
// boundary where the pair has no such columns.
template <int BW>
__device__ __forceinline__ void fill_block(const int col, const int Lk, const bool rd,
                                           unsigned short* ring_slot, const unsigned short* csrc,
                                           unsigned int* bslot, const unsigned int* bsrc, const unsigned int pad2)
{
    if (col < Lk) cp_async8(ring_slot, csrc + col);
    else *reinterpret_cast<uint2*>(ring_slot) = make_uint2(pad2, pad2);
    if (rd && col < Lk) {
#pragma unroll
        for (int x = 0; x < BW; ++x) cp_async16(bslot + 4 * x, bsrc + (long long)col * BW + 4 * x);
    } else {
#pragma unroll
        for (int x = 0; x < BW; ++x) *reinterpret_cast<uint4*>(bslot + 4 * x) = make_uint4(0u, 0u, 0u, 0u);
    }
}

template <int G, int R>
struct Geo {
    static constexpr int T8 = G * R / 8;          // 16-byte profile chunks per letter per tile
    static constexpr int C = R / 8;               // chunks per thread per letter
    // Row stride of the shared profile (in 16-byte units), chosen so that the
    // groups of one quarter warp start on different banks where possible.
    static constexpr int RS = (G >= 8) ? T8 : (T8 + ((G - (T8 % 8)) % 8 + 8) % 8);
};

// Shared memory (in 16-byte units): the profile tile (nlet x RS; one per
// warp, or one per block when BP), then per group a ring of 64 residue codes
// (8 units) and a double buffer of incoming boundary values (2 blocks of 4
// columns), padded to an odd size so that groups start on different banks.
template <int G, bool WIDE>
struct WarpSmem {
    static constexpr int NG = 32 / G;                   // groups per warp
    static constexpr int CODE_RING = 64;                // columns
    static constexpr int CODE_UNITS = CODE_RING * 2 / 16;
    static constexpr int BND_UNITS = 2 * 4 * (WIDE ? 4 : 2) * 4 / 16;
    static constexpr int GROUP_UNITS = CODE_UNITS + BND_UNITS + 1;
    static constexpr int EXTRA = NG * GROUP_UNITS;
};

// Main search kernel.
//   gprof   : query profile, (nlet) x (qpad8) chunks of 8 int16 rows; letter
//             nlet-1 is the pad letter; rows >= query length hold NEG.
//   codes   : pair-interleaved database codes; pair k occupies columns
//             [poff[k], poff[k] + plen[k]), plen a multiple of 4.
//   porig   : original indices of the two sequences of each pair (b may be -1).
//   groups  : ngroups groups; group i scores pair first + i, or glist[i] if use_list.
//   bnd     : boundary buffer; group i uses columns from poff[k] (or boff[i]
//             if use_list).
//   scores  : int32 per original sequence.
//   ovf     : [count, pair...] pairs whose 16-bit scores may have overflowed.
template <int G, int R, bool WIDE, bool BP>
__global__ void __maxnreg__(SWP_REGS(R, WIDE))
sw_search(const uint4* __restrict__ gprof, const int nlet, const long long qpad8, const int npass,
          const unsigned short* __restrict__ codes, const long long* __restrict__ poff,
          const int* __restrict__ plen, const int* __restrict__ porig,
          const int ngroups, const int first, const int* __restrict__ glist, const int use_list,
          unsigned int* __restrict__ bnd, const long long* __restrict__ boff,
          const int gap_open, const int gap_ext, const int thresh, const int pad,
          int* __restrict__ scores, int* __restrict__ ovf)
{
    typedef typename LaneT<WIDE>::T V;
    typedef WarpSmem<G, WIDE> WS;
    constexpr int T8 = Geo<G, R>::T8;
    constexpr int C = Geo<G, R>::C;
    constexpr int RS = Geo<G, R>::RS;
    constexpr int BW = BndWords<V>::N;  // boundary words per column
    constexpr int STEP_UNROLL = SWP_STEP_UNROLL(R, WIDE);
    static_assert(R % 8 == 0 && G >= 2 && G <= 32 && (G & (G - 1)) == 0, "bad tile");

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

    int k = -1, Lk = 0;
    long long cb = 0, bb = 0;
    if (gi < ngroups) {
        k = use_list ? glist[gi] : first + (int)gi;
        Lk = plen[k];
        cb = poff[k];
        bb = use_list ? boff[gi] : cb;
    }
    const int Lw = (int)__reduce_max_sync(SWP_FULL, (unsigned int)Lk);
    const int nblk = (Lw + G + 2) >> 2;  // steps: Lw + G - 1, rounded up to 4

    uint4* sw = BP ? smem : smem + wib * (nlet * RS + WS::EXTRA);
    const uint4* sp = sw + t;
    uint4* gs = BP ? smem + nlet * RS + (wib * WS::NG + gl) * WS::GROUP_UNITS
                   : sw + nlet * RS + gl * WS::GROUP_UNITS;
    unsigned short* ring = reinterpret_cast<unsigned short*>(gs);
    unsigned int* bring = reinterpret_cast<unsigned int*>(gs + WS::CODE_UNITS);

    V nopen, next, zero;
    splat(nopen, -gap_open);
    splat(next, -gap_ext);
    splat(zero, 0);
    const unsigned int padpair = (unsigned int)pad | ((unsigned int)pad << 8);
    const unsigned int pad2 = padpair | (padpair << 16);
    const bool lead = (t == 0);
    const unsigned short* cp = codes + cb;
    const unsigned int* bsrc = bnd + bb * BW;
    unsigned int* bdst = bnd + (bb - (G - 1)) * BW;  // indexed by step: column s - (G - 1)

    V mx = zero;
    for (int p = 0; p < npass; ++p) {
        // Stage this tile's query profile into the warp's shared memory.
        if (BP) __syncthreads(); else __syncwarp();
        {
            const uint4* gp = gprof + (long long)p * T8;
            const int i0 = BP ? (int)threadIdx.x : lane;
            const int di = BP ? SWP_NWARPS * 32 : 32;
            // destination order (consecutive threads, consecutive 16-byte units):
            // unit u = c * G + tt holds rows tt * R + 8c .. +7 of the tile
            for (int idx = i0; idx < nlet * T8; idx += di) {
                const int let = idx / T8, u = idx - let * T8;
                const int tt = u % G, c = u / G;
                sw[let * RS + u] = gp[(long long)let * qpad8 + tt * C + c];
            }
        }
        if (BP) __syncthreads();
        const bool rd = lead && p > 0;
        const bool wr = (t == G - 1) && (p + 1 < npass);
        if (lead) {
            // Columns < 0 (and all not yet fetched) read as pad.
            *reinterpret_cast<uint2*>(ring + 4) = make_uint2(pad2, pad2);
#pragma unroll
            for (int x = 1; x < WS::CODE_RING / 8; ++x)
                reinterpret_cast<uint4*>(ring)[x] = make_uint4(pad2, pad2, pad2, pad2);
            fill_block<BW>(0, Lk, rd, ring, cp, bring, bsrc, pad2);
        }
        cp_async_commit();

        V H[R], E[R];
#pragma unroll
        for (int r = 0; r < R; ++r) { H[r] = zero; E[r] = zero; }
        V hprev = zero, hl = zero, fo = zero;
        unsigned int* wp = bdst;  // boundary record of this thread's column at step s

        for (int b = 0; b < nblk; ++b) {
            const int s0 = b << 2;
            // Prefetch block b + 1, then wait for block b.
            if (lead)
                fill_block<BW>(s0 + 4, Lk, rd, ring + ((s0 + 4) & (WS::CODE_RING - 1)), cp,
                               bring + ((b + 1) & 1) * 4 * BW, bsrc, pad2);
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
                }
                const unsigned int cd = ring[(s - t) & (WS::CODE_RING - 1)];
                const uint4* pa = sp + (cd & 0xffu) * RS;
                const uint4* pb = sp + (cd >> 8) * RS;
                unsigned int wa[R / 2], wb[R / 2];
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    const uint4 A = pa[c * G];
                    const uint4 B = pb[c * G];
                    wa[4 * c] = A.x; wa[4 * c + 1] = A.y; wa[4 * c + 2] = A.z; wa[4 * c + 3] = A.w;
                    wb[4 * c] = B.x; wb[4 * c + 1] = B.y; wb[4 * c + 2] = B.z; wb[4 * c + 3] = B.w;
                }
                V x = add_max(hprev, subst_row<0>(wa, wb, zero), E[0]);
                hprev = hup;
                V f = fup;
                Rows<R, V, 0>::run(H, E, x, f, mx, wa, wb, nopen, next, zero);
                hl = H[R - 1];
                fo = f;
                if (wr && (unsigned int)(s - (G - 1)) < (unsigned int)Lk) bnd_put(wp, hl, fo);
                wp += BW;
            }
        }
        cp_async_wait_all();
    }

#pragma unroll
    for (int o = 1; o < G; o <<= 1) mx = max_relu(mx, shfl_xor(mx, o, G));

    if (lead && k >= 0) {
        int sa, sb;
        scores_of(mx, sa, sb);
        if (!WIDE && (sa > thresh || sb > thresh)) {
            const int pos = atomicAdd(ovf, 1);
            ovf[1 + pos] = k;
        } else {
            scores[porig[2 * k]] = sa;
            const int ib = porig[2 * k + 1];
            if (ib >= 0) scores[ib] = sb;
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

// Pair-interleaved database codes: one block per pair.
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

// Explicit instantiations for offline builds (nvcc --resource-usage checks);
// at run time NVRTC instantiates only the variants it is asked for.
#ifndef __CUDACC_RTC__
#define SWP_INSTANTIATE(G, R, W, BP)                                                                      \
    template __global__ void sw_search<G, R, W, BP>(const uint4* __restrict__, const int, const long long, \
        const int, const unsigned short* __restrict__, const long long* __restrict__,                      \
        const int* __restrict__, const int* __restrict__, const int, const int, const int* __restrict__,   \
        const int,                                                                                         \
        unsigned int* __restrict__, const long long* __restrict__, const int, const int, const int,        \
        const int, int* __restrict__, int* __restrict__);
SWP_INSTANTIATE(8, 16, false, false)
SWP_INSTANTIATE(16, 16, false, false)
SWP_INSTANTIATE(16, 24, false, true)
SWP_INSTANTIATE(16, 32, false, true)
SWP_INSTANTIATE(32, 16, false, true)
SWP_INSTANTIATE(32, 24, false, true)
SWP_INSTANTIATE(32, 32, false, true)
SWP_INSTANTIATE(32, 16, true, true)
#endif
