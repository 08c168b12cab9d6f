#pragma once
// Shape "_T" of the END, START and LAST passes (included by sw_traceback.cu):
// large problems, several in one launch, each on a range of the grid's
// blocks (blocks[p] .. blocks[p + 1] - 1, sized by the host to the problem's
// cells), every block resident at once. A strip is 32 * TW_R rows: lane l
// holds rows i0 + l * TW_R + 1 .. i0 + (l + 1) * TW_R in registers and runs one
// column behind lane l - 1, so the three shuffles and the row-buffer work of
// a column step are shared by TW_R cells. Warp w of a problem takes strips w,
// w + W, ... (W: the problem's warps) and follows the warp of the strip above
// through a progress counter in global memory; the strip's last row goes to
// the problem's row buffer, which strip 0 does not read (it starts from the
// first row's values), so the host sets up nothing but the counters.
//
// Same values and tie rules as the other shapes: END keeps, per row, the first
// column of the row's best and then the first row of the best; START, per row,
// the first column whose pair reaches the target score, then the first row.
//
// Bands. When a problem's score is known or bounded below (desc[6] = T, see
// tw_band_row), a strip computes only the columns where some path through a
// cell of its rows can score T: an upper bound on such a path (tw_ub: the best
// letter score for every pair the path can hold, the cheapest gap letter for
// every letter one side has more) must reach T. The bound is concave in
// (i, j), so each row's columns are one interval, found by binary search, and
// a strip's the union of its rows'. Cells outside are minus infinity to the
// cells beside them. Every path scoring at least T keeps all its cells, so
// the cells on the optimal paths, and every value the passes report (the
// first best end, the first start, where the halves meet best), are exactly
// those of the whole matrix.

#define TW_R 8
#define TW_TALL (32 * TW_R)

struct TwTallShared {
    int M[TW_MAXK * TW_MAXK];
    int ch[TW_WARPS][2][32];  // row-buffer H of the next columns, double-buffered per warp
    int cf[TW_WARPS][2][32];  // row-buffer F
    int cb[TW_WARPS][2][32];  // column letters
    int p, b0, nb;            // this block's problem, its first block and number of blocks
};

__device__ __forceinline__ bool tw_tall_wait(volatile long long* prog, const int pgw, const long long need,
                                             const int strip, volatile int* stop)
{
    int ok = 1;
    if ((threadIdx.x & 31) == 0) {
        while (prog[pgw] < need) {
            if (*stop < strip) { ok = 0; break; }
            __nanosleep(64);
        }
    }
    ok = __shfl_sync(TW_FULL, ok, 0);
    __threadfence();
    return ok;
}

__device__ __forceinline__ void tw_tall_publish(volatile long long* prog, const int gw, const long long value)
{
    __threadfence();
    __syncwarp();
    if ((threadIdx.x & 31) == 0) prog[gw] = value;
}

// The row-buffer values of column j above strip `strip` (strip 0: row 0's).
template <int MODE>
__device__ __forceinline__ void tw_tall_above(const int strip, const int j, const int plo, const int phi,
                                              const int* Hrow, const int* Frow, const int go, const int ge, int& h,
                                              int& f)
{
    if (strip == 0) {
        h = tw_row0<MODE>(j, go, ge);
        f = TW_NEG;
    } else if (j >= plo && j <= phi) {
        h = __ldcg(Hrow + j);
        f = __ldcg(Frow + j);
    } else {  // outside the band of the strip above
        h = TW_NEG;
        f = TW_NEG;
    }
}

#define TW_NOPRUNE (-(1LL << 62))

// Problem parameters of the bands (desc[6], desc[7]; mmax: the best letter score).
struct TwBand {
    long long T;  // TW_NOPRUNE: every column
    int mf, n, mmax, g;
    bool last;  // END: alignments end with a pair in the last column
};

// The bands of problem d (desc[6]: the score bound, desc[7]: the rows it is of).
__device__ __forceinline__ TwBand tw_band_of(const long long* d, const int go, const int ge, const int mmax,
                                             const bool last)
{
    TwBand band;
    // the bound counts every gap letter at the cheapest, and the pieces' bounds (host) hold for ge <= go only
    band.T = mmax > 0 && min(go, ge) >= 0 && ge <= go ? d[6] : TW_NOPRUNE;
    band.mf = (int)d[7];
    band.n = (int)d[3];
    band.mmax = mmax;
    band.g = min(go, ge);
    band.last = last;
    return band;
}

// An upper bound on the score of a path of the problem through cell (i, j)
// (i of mf rows, j of n columns; g: the cheapest gap letter): END, a local
// start and an end anywhere (in the last column: at least a gap letter for
// each column more than rows left); START, anchored at (0, 0), a free end;
// LAST (a global half of a piece of mf rows), anchored at both corners.
template <int MODE>
__device__ __forceinline__ long long tw_ub(const TwBand& B, const int i, const int j)
{
    const long long M = B.mmax, g = B.g;
    const long long rr = B.mf - i, cc = B.n - j;
    const long long pre = M * min(i, j) - (MODE == TW_END ? 0 : g * abs(i - j));
    long long post = M * min(rr, cc);
    if (MODE == TW_LAST) post -= g * (rr > cc ? rr - cc : cc - rr);
    if (MODE == TW_END && B.last) post -= g * max(0LL, cc - rr);
    return pre + post;
}

// Columns lo .. hi of row i whose bound reaches T (lo > hi: none).
template <int MODE>
__device__ __forceinline__ void tw_band_row(const TwBand& B, const int i, int& lo, int& hi)
{
    if (B.T == TW_NOPRUNE) { lo = 1; hi = B.n; return; }
    int a = 1, b = B.n;  // the bound is concave in j: its peak first
    while (a < b) {
        const int mid = (a + b) >> 1;
        if (tw_ub<MODE>(B, i, mid + 1) > tw_ub<MODE>(B, i, mid)) a = mid + 1; else b = mid;
    }
    const int peak = a;
    if (tw_ub<MODE>(B, i, peak) < B.T) { lo = B.n + 1; hi = 0; return; }
    a = 1;
    b = peak;
    while (a < b) {
        const int mid = (a + b) >> 1;
        if (tw_ub<MODE>(B, i, mid) >= B.T) b = mid; else a = mid + 1;
    }
    lo = a;
    a = peak;
    b = B.n;
    while (a < b) {
        const int mid = (a + b + 1) >> 1;
        if (tw_ub<MODE>(B, i, mid) >= B.T) a = mid; else b = mid - 1;
    }
    hi = a;
}

// The columns of strip `strip` (rows i0 + 1 .. min(i0 + TW_TALL, m)): the
// union of its rows' bands, each lane taking TW_R rows.
template <int MODE>
__device__ __forceinline__ void tw_band_strip(const TwBand& B, const int m, const int strip, int& lo, int& hi)
{
    lo = B.n + 1;
    hi = 0;
    if (B.T == TW_NOPRUNE) { lo = 1; hi = B.n; return; }
    const int i0 = strip * TW_TALL + (threadIdx.x & 31) * TW_R;
    for (int r = 0; r < TW_R; ++r) {
        const int i = i0 + r + 1;
        if (i > m) break;
        int a, b;
        tw_band_row<MODE>(B, i, a, b);
        lo = min(lo, a);
        hi = max(hi, b);
    }
    for (int o = 16; o > 0; o >>= 1) {
        lo = min(lo, __shfl_xor_sync(TW_FULL, lo, o));
        hi = max(hi, __shfl_xor_sync(TW_FULL, hi, o));
    }
}

// One strip of rows i0 + 1 .. i0 + rows (rows == TW_TALL when FULL). Returns
// false when the strip above was cut off by the stop strip (nothing done).
// END / START: sb[r], sj[r] hold row r's best (or hit) and its first column.
template <int MODE, bool FULL, bool LASTONLY>
__device__ __forceinline__ bool tw_tall_strip(TwTallShared& S, const int w, const int strip, const int i0,
                                              const int rows, const unsigned char* __restrict__ a,
                                              const unsigned char* __restrict__ b, const int step, const int n,
                                              const int go, const int ge, const int K, const int aux,
                                              int* __restrict__ Hrow, int* __restrict__ Frow,
                                              volatile long long* prog, const int gw, const int pgw,
                                              volatile int* stop, const int lo, const int hi, const int plo,
                                              const int phi, int (&sb)[TW_R], int (&sj)[TW_R])
{
    const int lane = threadIdx.x & 31;
    const long long base = (long long)(strip - 1) * (n + 1);
    const int W = hi - lo + 1;  // the strip's columns lo .. hi
    const int ir = i0 + lane * TW_R;  // the row above this lane's first
    const int wl = (rows - 1) / TW_R;  // the lane and slot of the strip's last row
    const int ws = (rows - 1) % TW_R;
    const bool live = FULL || lane <= wl;
    int arow[TW_R], hc[TW_R], ec[TW_R];
#pragma unroll
    for (int r = 0; r < TW_R; ++r) {
        const int i = ir + r + 1;
        arow[r] = (FULL || i <= i0 + rows) ? (int)a[(long long)(i - 1) * step] * K : 0;
        hc[r] = lo == 1 ? tw_col0<MODE>(i, aux, ge) : TW_NEG;  // H(i, lo - 1)
        ec[r] = TW_NEG;
        sb[r] = 0;
        sj[r] = 0;
    }
    if (W <= 0) {  // no column of this strip can score the target
        tw_tall_publish(prog, gw, base + (n + 1) + n);
        return true;
    }
    // the columns of the strip above that the chunks up to c + 1 need (none left of its band). The
    // bound is the same along diagonals (tw_ub(i + 1, j + 1) == tw_ub(i, j)), so a strip's band is never left
    // of the one above: the columns it writes were written above it first, and no older strip's value is read
    auto ready = [&](const int c) {
        const int need = min(phi, min(hi, lo + ((c + 2) << 5) - 1));
        return strip == 0 || need < plo || tw_tall_wait(prog, pgw, base + need, strip, stop);
    };
    int hb = hc[TW_R - 1], fb = TW_NEG, bc = 0;  // this lane's last row at its column, and the column letter
    if (!ready(0)) return false;
    int diag;  // lane 0: H(i0, lo - 1); the others get it from the shuffle before their first column
    if (lo == 1) {
        diag = tw_col0<MODE>(ir, aux, ge);
    } else {
        int f;
        tw_tall_above<MODE>(strip, lo - 1, plo, phi, Hrow, Frow, go, ge, diag, f);
    }
    int rh = 0, rf = 0, rb = 0;
    {
        const int j = lo + lane;
        if (j <= hi) {
            int h, f;
            tw_tall_above<MODE>(strip, j, plo, phi, Hrow, Frow, go, ge, h, f);
            S.ch[w][0][lane] = h;
            S.cf[w][0][lane] = f;
            S.cb[w][0][lane] = b[(long long)(j - 1) * step];
        }
        const int j2 = j + 32;
        if (j2 <= hi) {
            tw_tall_above<MODE>(strip, j2, plo, phi, Hrow, Frow, go, ge, rh, rf);
            rb = b[(long long)(j2 - 1) * step];
        }
    }
    __syncwarp();
    const int nchunks = (W + 31) >> 5;
    const int steps = W + wl;
    for (int s = 0; s < steps; ++s) {
        const int slot = s & 31;
        if (slot == 0 && s > 0) {
            // chunk c = s / 32 goes to shared memory; chunk c + 1 is loaded
            const int c = s >> 5;
            tw_tall_publish(prog, gw, base + (n + 1) + lo - 1 + max(0, s - wl));
            if (!ready(c)) return false;
            __syncwarp();
            if (c < nchunks) {
                S.ch[w][c & 1][lane] = rh;
                S.cf[w][c & 1][lane] = rf;
                S.cb[w][c & 1][lane] = rb;
            }
            const int j2 = lo + ((c + 1) << 5) + lane;
            if (j2 <= hi) {
                tw_tall_above<MODE>(strip, j2, plo, phi, Hrow, Frow, go, ge, rh, rf);
                rb = b[(long long)(j2 - 1) * step];
            }
            __syncwarp();
        }
        int up = __shfl_up_sync(TW_FULL, hb, 1);
        int upf = __shfl_up_sync(TW_FULL, fb, 1);
        int ub = __shfl_up_sync(TW_FULL, bc, 1);
        const int jr = s - lane;  // this lane's column, from lo
        const int j = lo + jr;
        if (lane == 0 && jr < W) {
            const int c = (s >> 5) & 1;
            up = S.ch[w][c][slot];
            upf = S.cf[w][c][slot];
            ub = S.cb[w][c][slot];
        }
        if (live && jr >= 0 && jr < W) {
            bc = ub;
            const int* col = S.M + ub;
            int hup = up, fup = upf, dg = diag, wh = 0, wf = 0;
#pragma unroll
            for (int r = 0; r < TW_R; ++r) {
                const int e = __viaddmax_s32(ec[r], -ge, hc[r] - go);
                const int f = __viaddmax_s32(fup, -ge, hup - go);
                const int d = dg + col[arow[r]];
                int h;
                if (MODE == TW_END) {
                    h = __vimax3_s32_relu(d, f, e);
                    if (LASTONLY) {
                        if (j == n && d > sb[r]) { sb[r] = d; sj[r] = j; }
                    } else {
                        bool kept;
                        sb[r] = __vibmax_s32(sb[r], h, &kept);
                        if (!kept) sj[r] = j;
                    }
                } else {
                    if (MODE == TW_START && d == aux && sj[r] == 0) sj[r] = j;
                    h = __vimax3_s32(d, f, e);
                }
                dg = hc[r];
                hc[r] = h;
                ec[r] = e;
                hup = h;
                fup = f;
                if (!FULL && r == ws) { wh = h; wf = f; }
            }
            hb = hup;
            fb = fup;
            if (lane == wl) {
                Hrow[j] = FULL ? hup : wh;
                Frow[j] = FULL ? fup : wf;
            }
        }
        diag = up;
    }
    tw_tall_publish(prog, gw, base + (n + 1) + n);
    __syncwarp();
    return true;
}

template <int MODE, bool LASTONLY>
__device__ __forceinline__ void tw_tall_run(TwTallShared& S, const int w, const int wp, const int nw, const int m,
                                            const unsigned char* __restrict__ a,
                                            const unsigned char* __restrict__ b, const int step, const int n,
                                            const int go, const int ge, const int K, const int aux,
                                            int* __restrict__ Hrow, int* __restrict__ Frow,
                                            volatile long long* prog, const int gw, const int pgw,
                                            volatile int* stop, const TwBand& band, int& best, int& bi, int& bj)
{
    const int lane = threadIdx.x & 31;
    const int nstrips = (m + TW_TALL - 1) / TW_TALL;
    int sb[TW_R], sj[TW_R];
    for (int strip = wp; strip < nstrips; strip += nw) {
        if (*stop < strip) break;
        const int i0 = strip * TW_TALL;
        const int rows = min(TW_TALL, m - i0);
        int lo, hi, plo = 1, phi = n;
        tw_band_strip<MODE>(band, m, strip, lo, hi);
        if (strip > 0) tw_band_strip<MODE>(band, m, strip - 1, plo, phi);
        const bool ran = rows == TW_TALL
            ? tw_tall_strip<MODE, true, LASTONLY>(S, w, strip, i0, rows, a, b, step, n, go, ge, K, aux, Hrow, Frow,
                                                 prog, gw, pgw, stop, lo, hi, plo, phi, sb, sj)
            : tw_tall_strip<MODE, false, LASTONLY>(S, w, strip, i0, rows, a, b, step, n, go, ge, K, aux, Hrow, Frow,
                                                  prog, gw, pgw, stop, lo, hi, plo, phi, sb, sj);
        if (!ran) break;
        // this strip's rows, first to last: END keeps the first row of the best
        // (rows of earlier strips are above), START the first row with a hit
#pragma unroll
        for (int r = 0; r < TW_R; ++r) {
            const int i = i0 + lane * TW_R + r + 1;
            if (MODE == TW_END && i <= i0 + rows && sb[r] > best) { best = sb[r]; bi = i; bj = sj[r]; }
            if (MODE == TW_START && i <= i0 + rows && sj[r] != 0 && bi == 0) { bi = i; bj = sj[r]; }
        }
        const bool done = (MODE == TW_START && __ballot_sync(TW_FULL, bi != 0)) ||
                          (MODE == TW_END && aux >= 0 && __ballot_sync(TW_FULL, best >= aux));
        if (done) {
            if (lane == 0) atomicMin((int*)stop, strip);
            break;
        }
    }
}

// res[3 * gw ..]: warp gw's best, bi, bj (END: the best score, then the first
// row, then the first column; START: the first hit, bi == 0 when none); the
// host combines the warps of each problem.
template <int MODE>
__device__ __forceinline__ void tw_tall(TW_ARGS, const int mmax, const int* __restrict__ blocks,
                                        int* __restrict__ res, long long* __restrict__ prog, int* __restrict__ stop)
{
    __shared__ TwTallShared S;
    if (threadIdx.x == 0) {
        int lo = 0, hi = nprob;  // the last problem whose first block is at or before this one
        while (hi - lo > 1) {
            const int mid = (lo + hi) >> 1;
            if (blocks[mid] <= (int)blockIdx.x) lo = mid; else hi = mid;
        }
        S.p = lo;
        S.b0 = blocks[lo];
        S.nb = blocks[lo + 1] - blocks[lo];
    }
    for (int x = threadIdx.x; x < K * K; x += blockDim.x) S.M[x] = M[x];
    __syncthreads();
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int p = S.p;
    const long long* d = desc + (long long)p * TW_FIELDS;
    const int m = (int)d[1], n = (int)d[3];
    const int step = d[4] ? -1 : 1;
    int* Hrow = rows + d[5];
    int* Frow = Hrow + (n + 1);
    const int aux = (int)d[8];
    const int nw = S.nb * TW_WARPS;
    const int wp = ((int)blockIdx.x - S.b0) * TW_WARPS + w;
    const int gw = (int)blockIdx.x * TW_WARPS + w;
    const int pgw = S.b0 * TW_WARPS + (wp == 0 ? nw - 1 : wp - 1);
    if (MODE == TW_LAST && wp == 0 && lane == 0) {  // column 0 of row m (never read by the passes)
        const int c0 = -(aux + (m - 1) * ge);
        Hrow[0] = c0;
        Frow[0] = c0;
    }
    const TwBand band = tw_band_of(d, go, ge, mmax, MODE == TW_END && d[9] != 0);
    int best = 0, bi = 0, bj = 0;
    if (MODE == TW_END && d[9] != 0)
        tw_tall_run<MODE, true>(S, w, wp, nw, m, A + d[0], B + d[2], step, n, go, ge, K, aux, Hrow, Frow, prog, gw,
                                pgw, stop + p, band, best, bi, bj);
    else
        tw_tall_run<MODE, false>(S, w, wp, nw, m, A + d[0], B + d[2], step, n, go, ge, K, aux, Hrow, Frow, prog,
                                 gw, pgw, stop + p, band, best, bi, bj);
    if (MODE == TW_LAST) return;
    if (MODE == TW_END) tw_warp_best(best, bi, bj);
    else tw_warp_first(bi, bj);
    if (lane == 0) {
        res[3 * gw] = best;
        res[3 * gw + 1] = bi;
        res[3 * gw + 2] = bj;
    }
}

#define TW_TALL_KERNEL(NAME, MODE)                                                                              \
    extern "C" __global__ void __launch_bounds__(32 * TW_WARPS, 2)                                                \
    NAME(TW_ARGS, const int mmax, const int* __restrict__ blocks, int* __restrict__ res,                         \
         long long* __restrict__ prog, int* __restrict__ stop)                                                   \
    { tw_tall<MODE>(A, B, desc, nprob, M, K, go, ge, rows, mmax, blocks, res, prog, stop); }

#if TW_IN(5)
TW_TALL_KERNEL(tw_sw_end_T, TW_END)
#endif
#if TW_IN(6)
TW_TALL_KERNEL(tw_sw_start_T, TW_START)
#endif
#if TW_IN(7)
TW_TALL_KERNEL(tw_nw_last_T, TW_LAST)
#endif
