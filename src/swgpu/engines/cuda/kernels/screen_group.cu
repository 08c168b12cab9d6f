// Bulk pair screening, "group" kernel: a group of G threads scores two pairs
// (query i against target i) together, for batches too small to fill the GPU
// with one pair per thread.
//
// Codes are the DNA alphabet codes of swgpu.alphabet: A=0 C=1 G=2 T=3, N=4.
// N scores as a mismatch against everything, N included.
//
// Semantics (exact, the same as bpbc.cu):
//   H = max(0, Hdiag + s, E, F)
//   E = max(E_left - extend, H_left - open),  F = max(F_up - extend, H_up - open)
//   s = MATCH if q == t and neither is N, else MISMATCH.  Result: max H.
// E and F are kept clamped at 0 (extend >= 0, so max(0, E) follows the same
// recurrence and no H changes); every value is then in [0, bound].
//
// Layout and parallelisation
// --------------------------
// * Pairs 2g and 2g+1 of a launch form group g; their scores share one lane
//   value: two 16-bit halves of a register (s16x2, Hopper DPX instructions) or,
//   when the launcher finds that 16 bits could overflow, two 32-bit registers.
//   The launcher sorts a batch by target length, so both pairs of a group (and
//   the groups of a warp) have similar lengths.
// * Thread t of a group holds query rows [t*R, t*R + R) of a tile of G*R rows
//   (H, E and the two query codes per row in registers) and sweeps the target
//   columns one step behind thread t-1 (wavefront): at step s it works on
//   column s - t. H and F of its last row and the target code pair of its
//   column go to thread t+1 with __shfl_up_sync, one column behind.
// * Only the lead thread reads target codes (4 columns of both pairs per
//   load) and, from the second pass on, the boundary row of the previous tile.
// * PACK4 = 1: codes arrive packed two per byte (low nibble first), which
//   halves the host-to-device copy; PACK4 = 0: one code per byte.
// * Queries longer than G*R rows take several passes; the last row of a pass
//   (H and F per column) goes through a global buffer to the next pass.
// * Substitution scores need no profile: x = q ^ t per half (target N is
//   mapped to 7, query N stays 4, so x == 0 exactly for a real match), then
//   s = max(C - x*DM - OFF, MIS) with DM = MATCH - MIS, OFF = 7*DM,
//   C = MATCH + OFF: x = 0 gives MATCH, any x in 1..7 gives MIS. C - x*DM
//   stays in [MATCH, C] per half, so one 32-bit multiply-add serves both.
// * Cells outside a pair's target (wavefront fill before column 0 with zero
//   boundaries, N columns after its end) either compute exactly the zero
//   boundary or, past the end, values that can never exceed the pair's best
//   (N padding, proof in swgpu.engines.cpu.bitsliced); every operation is
//   monotone, so boundary values taken as 0 past the last stored column can
//   only lower such cells.
// ---------------------------------------------------------------------------

#include "lanes.cuh"

typedef unsigned int u32;
typedef unsigned char u8;

#define GRP_FULL 0xffffffffu

namespace grp {

using namespace lanes;

// Substitution scores of the two pairs from x = q ^ t (one code per half).
template <int MATCH, int MIS>
struct Subst {
    static constexpr int DM = MATCH - MIS;
    static constexpr int OFF = 7 * DM;
    static constexpr int C = MATCH + OFF;
    static __device__ __forceinline__ P2 of(u32 x, P2)
    {
        static_assert(C <= 32767, "packed substitution scores out of range");
        constexpr u32 C2 = ((u32)C << 16) | (u32)C;
        constexpr u32 NOFF2 = (((u32)(-OFF) & 0xffffu) << 16) | ((u32)(-OFF) & 0xffffu);
        constexpr u32 MIS2 = (((u32)MIS & 0xffffu) << 16) | ((u32)MIS & 0xffffu);
        P2 s;
        s.v = __viaddmax_s16x2(C2 - x * (u32)DM, NOFF2, MIS2);
        return s;
    }
    static __device__ __forceinline__ W2 of(u32 x, W2)
    {
        W2 s;
        s.a = (x & 0xffffu) ? MIS : MATCH;
        s.b = (x >> 16) ? MIS : MATCH;
        return s;
    }
};

// Boundary record of one column (H and F of the last row of a tile).
template <class V> struct BndWords { static constexpr int N = 2; };
template <> struct BndWords<W2> { static constexpr int N = 4; };

__device__ __forceinline__ void bnd_get(const u32* s, P2& h, P2& f)
{
    const uint2 x = *reinterpret_cast<const uint2*>(s);
    h.v = x.x;
    f.v = x.y;
}
__device__ __forceinline__ void bnd_get(const u32* s, W2& h, W2& f)
{
    const int4 x = *reinterpret_cast<const int4*>(s);
    h.a = x.x; h.b = x.y; f.a = x.z; f.b = x.w;
}
__device__ __forceinline__ void bnd_put(u32* g, P2 h, P2 f) { *reinterpret_cast<uint2*>(g) = make_uint2(h.v, f.v); }
__device__ __forceinline__ void bnd_put(u32* g, W2 h, W2 f) { *reinterpret_cast<int4*>(g) = make_int4(h.a, h.b, f.a, f.b); }

// 4 target codes with N (4) mapped to 7: bit 2 copied to bits 1 and 0.
__device__ __forceinline__ u32 map_n(u32 w) { return w | ((w >> 1) & 0x02020202u) | ((w >> 2) & 0x01010101u); }

// Code of row i of a code row (one per byte, or two per byte, low nibble first).
template <int PACK4>
__device__ __forceinline__ u32 code_at(const u8* row, int i)
{
    if constexpr (PACK4) return ((u32)row[i >> 1] >> ((i & 1) << 2)) & 0xfu;
    else return (u32)row[i];
}

// Codes of 4 consecutive columns from c (a multiple of 4), one per byte.
template <int PACK4>
__device__ __forceinline__ u32 codes4(const u8* row, int c)
{
    if constexpr (PACK4) {
        const u32 x = __ldg(reinterpret_cast<const unsigned short*>(row) + (c >> 2));
        return (x & 0xfu) | ((x & 0xf0u) << 4) | ((x & 0xf00u) << 8) | ((x & 0xf000u) << 12);
    } else {
        return __ldg(reinterpret_cast<const u32*>(row) + (c >> 2));
    }
}

}  // namespace grp

// ---------------------------------------------------------------------------
// qcodes [2*ngroups][m_pad], tcodes [2*ngroups][n_pad] codes (rows padded
// with N; n_pad a multiple of 32, m_pad a multiple of G*R; with PACK4 two
// codes per byte, rows of m_pad/2 and n_pad/2 bytes). glen [ngroups]:
// columns of group g (the longer target of its two pairs). scores
// [2*ngroups]. scratch: [ngroups][n_pad][BW] words, used only when
// m_pad > G*R. Launch: 128 threads per block, G threads per group.
// The launcher picks WIDE = 0 only when every 16-bit intermediate fits.
// ---------------------------------------------------------------------------
template <int G, int R, int WIDE, int AFFINE, int PACK4, int MATCH, int MIS, int OPEN, int EXT>
__global__ void __launch_bounds__(128)
grp_sw(const u8* __restrict__ qcodes, const u8* __restrict__ tcodes, const int* __restrict__ glen,
       int* __restrict__ scores, u32* __restrict__ scratch, int ngroups, int m_pad, int n_pad)
{
    static_assert(G >= 4 && G <= 32 && (G & (G - 1)) == 0, "G must be a power of two in 4..32");
    static_assert(R >= 1, "rows per thread");
    static_assert(AFFINE || OPEN == EXT, "linear gap needs OPEN == EXT");
    typedef typename grp::LaneT<WIDE != 0>::T V;
    typedef grp::Subst<MATCH, MIS> S;
    constexpr int BW = grp::BndWords<V>::N;

    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int t = lane & (G - 1);
    const long long gi = tid / G;
    if ((tid - lane) / G >= ngroups) return;  // the whole warp has no group
    const bool valid = gi < ngroups;
    const bool lead = t == 0;
    const int L = valid ? glen[gi] : 0;
    const int Lw = (int)__reduce_max_sync(GRP_FULL, (u32)L);
    const int nsteps = (Lw + G - 1 + 3) & ~3;
    const long long g = valid ? gi : 0;
    const int qstride = PACK4 ? (m_pad >> 1) : m_pad;
    const int tstride = PACK4 ? (n_pad >> 1) : n_pad;
    const u8* qa = qcodes + (size_t)(2 * g) * qstride;
    const u8* qb = qa + qstride;
    const u8* ta = tcodes + (size_t)(2 * g) * tstride;
    const u8* tb = ta + tstride;
    u32* scr = scratch + (size_t)g * n_pad * BW;
    const int npass = m_pad / (G * R);
    const bool load_t = lead && valid;

    V zero, nopen, next;
    splat(zero, 0);
    splat(nopen, -OPEN);
    splat(next, -EXT);
    V mx = zero;

    for (int p = 0; p < npass; ++p) {
        __syncwarp();
        u32 q[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int row = p * G * R + t * R + r;
            q[r] = valid ? (grp::code_at<PACK4>(qa, row) | (grp::code_at<PACK4>(qb, row) << 16)) : 0x00040004u;
        }
        V H[R], E[AFFINE ? R : 1];
#pragma unroll
        for (int r = 0; r < R; ++r) H[r] = zero;
#pragma unroll
        for (int r = 0; r < (AFFINE ? R : 1); ++r) E[r] = zero;
        V hprev = zero, hl = zero, fo = zero;
        u32 tcur = 0x00070007u;
        const bool rd = valid && lead && p > 0;
        const bool wr = valid && (t == G - 1) && (p + 1 < npass);
        V bh = zero, bf = zero;  // boundary of the lead's next column
        if (rd && Lw > 0) grp::bnd_get(scr, bh, bf);
        u32 wa = 0x07070707u, wb = 0x07070707u;
        if (load_t && n_pad > 0) {
            wa = grp::map_n(grp::codes4<PACK4>(ta, 0));
            wb = grp::map_n(grp::codes4<PACK4>(tb, 0));
        }

        for (int s0 = 0; s0 < nsteps; s0 += 4) {
            u32 na = 0x07070707u, nb = 0x07070707u;
            if (load_t && s0 + 4 < n_pad) {
                na = grp::map_n(grp::codes4<PACK4>(ta, s0 + 4));
                nb = grp::map_n(grp::codes4<PACK4>(tb, s0 + 4));
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const int s = s0 + u;
                V hup = grp::shfl_up(hl, G);
                V fup = grp::shfl_up(fo, G);
                u32 tc = __shfl_up_sync(GRP_FULL, tcur, 1, G);
                if (lead) {
                    tc = __byte_perm(wa, wb, (u32)u | ((4u + (u32)u) << 8)) & 0x00ff00ffu;
                    hup = bh;
                    fup = bf;
                    if (rd && s + 1 < Lw) grp::bnd_get(scr + (size_t)(s + 1) * BW, bh, bf);
                    else bh = bf = zero;
                }
                tcur = tc;
                V diag = hprev;
                hprev = hup;
                V f = fup;
                V hodd = zero;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const V sc = S::of(q[r] ^ tc, zero);
                    V h;
                    if constexpr (AFFINE) {
                        const V x = grp::add_max(diag, sc, E[r]);  // max(Hdiag + s, E)
                        h = grp::max_relu(x, f);                   // max(.., F, 0)
                        const V o = grp::add_max_relu(h, nopen, zero);  // max(H - open, 0)
                        E[r] = grp::add_max(E[r], next, o);
                        f = grp::add_max(f, next, o);
                    } else {
                        // E and F of a linear gap are both max(H - gap, 0) of the neighbour
                        const V el = grp::add_max_relu(H[r], nopen, zero);
                        const V x = grp::add_max(diag, sc, el);
                        h = grp::max_relu(x, f);
                        f = grp::add_max_relu(h, nopen, zero);
                    }
                    diag = H[r];
                    H[r] = h;
                    if (r & 1) mx = grp::max3_relu(mx, hodd, h);
                    else if (r == R - 1) mx = grp::max_relu(mx, h);
                    else hodd = h;
                }
                hl = H[R - 1];
                fo = f;
                if (wr) {
                    const int c = s - (G - 1);
                    if (c >= 0 && c < Lw) grp::bnd_put(scr + (size_t)c * BW, hl, fo);
                }
            }
            wa = na;
            wb = nb;
        }
    }

#pragma unroll
    for (int o = 1; o < G; o <<= 1) mx = grp::max_relu(mx, grp::shfl_xor(mx, o, G));
    if (lead && valid) {
        int sa, sb;
        grp::scores_of(mx, sa, sb);
        scores[2 * gi] = sa;
        scores[2 * gi + 1] = sb;
    }
}

// ---------------------------------------------------------------------------
// Instantiations for offline builds (nvcc --resource-usage); at run time the
// launcher names the instantiation it needs (NVRTC name expressions).
// ---------------------------------------------------------------------------
#ifndef __CUDACC_RTC__
#define GRP_INSTANTIATE(G, R, W, A, M, X, O, E)                                                        \
    template __global__ void grp_sw<G, R, W, A, 1, M, X, O, E>(const u8* __restrict__, const u8* __restrict__, \
        const int* __restrict__, int* __restrict__, u32* __restrict__, int, int, int);
// GASAL2 reads (m = 150, affine 2/-3/5/2) and the m = 128 benchmark (linear 2/-1/1)
GRP_INSTANTIATE(16, 10, 0, 1, 2, -3, 5, 2)
GRP_INSTANTIATE(8, 16, 0, 0, 2, -1, 1, 1)
GRP_INSTANTIATE(8, 16, 0, 1, 2, -3, 5, 2)
GRP_INSTANTIATE(16, 8, 0, 0, 2, -1, 1, 1)
GRP_INSTANTIATE(16, 8, 0, 1, 2, -3, 5, 2)
// the largest tiles of each lane type
GRP_INSTANTIATE(32, 16, 0, 1, 2, -3, 5, 2)
GRP_INSTANTIATE(32, 16, 0, 0, 2, -1, 1, 1)
GRP_INSTANTIATE(4, 16, 0, 1, 2, -3, 5, 2)
GRP_INSTANTIATE(32, 12, 1, 1, 2, -3, 5, 2)
GRP_INSTANTIATE(32, 12, 1, 0, 2, -1, 1, 1)
template __global__ void grp_sw<16, 10, 0, 1, 0, 2, -3, 5, 2>(const u8* __restrict__, const u8* __restrict__,
    const int* __restrict__, int* __restrict__, u32* __restrict__, int, int, int);
#endif
