// Traceback passes, a wavefront over strips of 32 rows (lane l holds row
// i0 + l + 1 and runs one column behind lane l - 1; H and F pass down by
// shuffles, the last row of a strip goes to a row buffer in global memory for
// the next strip). Exact 32-bit arithmetic with Hopper DPX max instructions.
// Each kernel comes in two shapes: "_1", one warp per problem (eight problems
// per block), and "_8", eight warps per problem, warp w taking strips w, w + 8,
// ... and following the warp of the strip above it through a progress counter
// in shared memory (for long problems, whose strips would otherwise run one
// after another); the END, START and LAST passes also in a third, "_T", for
// large problems: TW_R rows a lane, each problem on a range of the grid's
// blocks (sw_traceback_tall.cuh).
//
// These kernels compute the same DP values as the CPU engine's Numba kernels
// (swgpu/engines/cpu/pairwise.py) and apply the same tie rules (see
// swgpu.align.reference), in a different order of evaluation:
//
//   tw_sw_end    : best local score and its first cell (row-major), or the
//                  best alignment ending with a pair in the last column;
//   tw_sw_start  : anchored pass over the reversed prefixes: the first cell
//                  (row-major, reversed coordinates) whose pair ends at best;
//   tw_nw_last   : last row (H and F) of a global pass, lead gap cost given:
//                  the two halves of a Myers-Miller split, forward or reversed;
//   tw_split     : where the forward and reversed last rows meet best;
//   tw_nw_path   : an optimal global path with 4-bit directions per cell, walked
//                  back on the GPU.
//
// Problem p is described by TW_FIELDS int64 values at desc[p * TW_FIELDS]:
//   0 index of the first row letter in A (of the last one when reversed)
//   1 m (rows)            2 index of the first column letter in B (last when reversed)
//   3 n (columns)         4 1 = read both sides backwards
//   5 row buffer offset (ints; H at +0, F at +(n + 1))
//   6 direction words offset (uint32; tw_nw_path)
//   7 op offset (bytes; tw_nw_path)
//   8 lead gap open (tw_nw_last, tw_nw_path), the target score (tw_sw_start) or
//     the best score when known, else -1 (tw_sw_end: stop after the strip that reaches it)
//   9 tail gap open (tw_nw_path); tw_sw_end: 1 = alignments end with a pair
//     in the last column (the best such score, its first row)

// TW_PART (a compile option) keeps the kernels of one part only, so that the
// parts compile side by side on a fresh machine (swgpu/engines/cuda/traceback_passes.py:
// PARTS); 0 or undefined: every kernel.
#ifndef TW_PART
#define TW_PART 0
#endif
#define TW_IN(part) (TW_PART == 0 || TW_PART == (part))

#define TW_NEG (-(1 << 29))
#define TW_MAXK 32
#define TW_FIELDS 10
#define TW_WARPS 8
#define TW_FULL 0xffffffffu
#define TW_NOSTOP 0x7fffffff

enum { TW_END = 0, TW_START = 1, TW_LAST = 2, TW_PATH = 3 };

struct TwShared {
    int M[TW_MAXK * TW_MAXK];
    int ch[TW_WARPS][2][32];  // row-buffer H of the next columns, double-buffered per warp
    int cf[TW_WARPS][2][32];  // row-buffer F
    int cb[TW_WARPS][2][32];  // column letters
    volatile long long prog[TW_WARPS];  // (shape _8) strip * (n + 1) + columns of the row buffer written
    volatile int stop;                  // (shape _8) first strip that reached the goal (END, START)
    int rb[TW_WARPS], ri[TW_WARPS], rj[TW_WARPS];
};

struct TwResult {
    int best, bi, bj;
};

// H(i, 0): the first column.
template <int MODE>
__device__ __forceinline__ int tw_col0(const int i, const int lead, const int ge)
{
    if (MODE == TW_END) return 0;
    if (MODE == TW_START) return i == 0 ? 0 : TW_NEG;
    return i == 0 ? 0 : -(lead + (i - 1) * ge);
}

// H(0, j), j >= 1: the first row.
template <int MODE>
__device__ __forceinline__ int tw_row0(const int j, const int go, const int ge)
{
    if (MODE == TW_END) return 0;
    if (MODE == TW_START) return TW_NEG;
    return -(go + (j - 1) * ge);
}

template <int NW>
__device__ __forceinline__ int tw_load(const int* p)
{
    return NW != 1 ? __ldcg(p) : *p;  // rows written by another warp: read through L2
}

// (shape _8) wait until the strip above has written `need` columns; false
// when this strip is past the stop strip (its result is not needed).
template <int NW>
__device__ __forceinline__ bool tw_wait(TwShared& S, const int pw, const long long need, const int strip)
{
    int ok = 1;
    if ((threadIdx.x & 31) == 0) {
        while (S.prog[pw] < need) {
            if (S.stop < strip) { ok = 0; break; }
            __nanosleep(64);
        }
    }
    ok = __shfl_sync(TW_FULL, ok, 0);
    __threadfence();
    return ok;
}

template <int NW>
__device__ __forceinline__ void tw_publish(TwShared& S, const int wp, const long long value)
{
    __threadfence();
    __syncwarp();
    if ((threadIdx.x & 31) == 0) S.prog[wp] = value;
}

// The warp's best (END): the best score, then the smallest row, then the smallest column.
__device__ __forceinline__ void tw_warp_best(int& best, int& bi, int& bj)
{
    for (int o = 16; o > 0; o >>= 1) {
        const int ob = __shfl_xor_sync(TW_FULL, best, o);
        const int oi = __shfl_xor_sync(TW_FULL, bi, o);
        const int oj = __shfl_xor_sync(TW_FULL, bj, o);
        if (ob > best || (ob == best && (oi < bi || (oi == bi && oj < bj)))) { best = ob; bi = oi; bj = oj; }
    }
}

// The warp's first hit (START): that of the first lane with one (bi == 0: none).
__device__ __forceinline__ void tw_warp_first(int& bi, int& bj)
{
    const unsigned int hit = __ballot_sync(TW_FULL, bi != 0);
    const int src = hit ? __ffs(hit) - 1 : 0;
    bi = __shfl_sync(TW_FULL, bi, src);
    bj = __shfl_sync(TW_FULL, bj, src);
}

// The wavefront over one problem, by NW warps (wp: this warp's place among
// them, w: its place in the block). Row i reads a[(i - 1) * step], column j
// reads b[(j - 1) * step] (step -1: backwards). Returns, for this warp's
// strips, END: the best score and its first cell; START: the first hit (bi ==
// 0: none). LAST and PATH: Hrow/Frow hold row m once all warps are done.
template <int MODE, int NW>
__device__ TwResult tw_wave(TwShared& S, const int w, const int wp, const int K, const unsigned char* __restrict__ a,
                            const unsigned char* __restrict__ b, const int step, const int m, const int n,
                            const int go, const int ge, const int aux, int* __restrict__ Hrow,
                            int* __restrict__ Frow, unsigned int* __restrict__ dirs, const bool last_only = false)
{
    const int lane = threadIdx.x & 31;
    const int nw = NW;
    for (int j = wp * 32 + lane; j <= n; j += 32 * NW) {
        Hrow[j] = j == 0 ? 0 : tw_row0<MODE>(j, go, ge);
        Frow[j] = TW_NEG;
    }
    if (NW > 1) {
        if (lane == 0) S.prog[wp] = -1;
        if (threadIdx.x == 0) S.stop = TW_NOSTOP;
        __threadfence_block();
        __syncthreads();
    } else {
        __syncwarp();
    }
    const int pw = wp == 0 ? nw - 1 : wp - 1;  // the warp of the strip above
    int best = 0, bi = 0, bj = 0;
    const int W = (n + 7) >> 3;  // direction words per strip row
    const int nchunks = (n + 31) >> 5;
    for (int strip = wp; strip * 32 < m; strip += nw) {
        if (NW != 1 && S.stop < strip) break;
        const int i0 = strip * 32;
        const long long base = (long long)(strip - 1) * (n + 1);
        const int i = i0 + lane + 1;
        const bool live = i <= m;
        const int last = min(31, m - 1 - i0);  // the lane that writes the row buffer
        const int* srow = S.M + (live ? (int)a[(long long)(i - 1) * step] : 0) * K;
        int h = tw_col0<MODE>(i, aux, ge);  // H(i, j - 1), starts at the first column
        int e = TW_NEG, f = TW_NEG, bc = 0;
        int diag = tw_col0<MODE>(i0, aux, ge);  // lane 0: H(i0, 0); other lanes get it from the shuffle at j = 0
        unsigned int word = 0;
        unsigned int* drow = dirs + ((long long)strip * W) * 32 + lane;
        if (NW != 1 && strip > 0 && !tw_wait<NW>(S, pw, base + min(n, 64), strip)) break;
        // chunk 0 of the row buffer into shared memory, chunk 1 into registers
        int rh = 0, rf = 0, rb = 0;
        {
            const int j = lane + 1;
            if (j <= n) {
                S.ch[w][0][lane] = tw_load<NW>(Hrow + j);
                S.cf[w][0][lane] = tw_load<NW>(Frow + j);
                S.cb[w][0][lane] = b[(long long)(j - 1) * step];
            }
            const int j2 = j + 32;
            if (j2 <= n) { rh = tw_load<NW>(Hrow + j2); rf = tw_load<NW>(Frow + j2); rb = b[(long long)(j2 - 1) * step]; }
        }
        __syncwarp();
        const int steps = n + last;
        bool quit = false;
        for (int s = 0; s < steps; ++s) {
            const int slot = s & 31;
            if (slot == 0 && s > 0) {
                // chunk c = s / 32 goes to shared memory; chunk c + 1 is loaded
                const int c = s >> 5;
                if (NW != 1) {
                    tw_publish<NW>(S, wp, base + (n + 1) + max(0, s - last));
                    if (strip > 0 && !tw_wait<NW>(S, pw, base + min(n, (c + 2) << 5), strip)) { quit = true; break; }
                }
                __syncwarp();
                if (c < nchunks) {
                    S.ch[w][c & 1][lane] = rh;
                    S.cf[w][c & 1][lane] = rf;
                    S.cb[w][c & 1][lane] = rb;
                }
                const int j2 = ((c + 1) << 5) + lane + 1;
                if (j2 <= n) { rh = tw_load<NW>(Hrow + j2); rf = tw_load<NW>(Frow + j2); rb = b[(long long)(j2 - 1) * step]; }
                __syncwarp();
            }
            int up = __shfl_up_sync(TW_FULL, h, 1);
            int upf = __shfl_up_sync(TW_FULL, f, 1);
            int ub = __shfl_up_sync(TW_FULL, bc, 1);
            const int j = s - lane + 1;
            if (lane == 0 && j <= n) {
                const int c = (s >> 5) & 1;
                up = S.ch[w][c][slot];
                upf = S.cf[w][c][slot];
                ub = S.cb[w][c][slot];
            }
            if (live && j >= 1 && j <= n) {
                bc = ub;
                const int sub = srow[ub];
                if (MODE == TW_PATH) {
                    unsigned int fl = 0;
                    const int eo = h - go, ee = e - ge;
                    if (ee >= eo) { e = ee; fl |= 4u; } else { e = eo; }
                    const int fo = up - go, fe = upf - ge;
                    if (fe >= fo) { f = fe; fl |= 8u; } else { f = fo; }
                    int hh = diag + sub;
                    if (e > hh) { hh = e; fl = (fl & 12u) | 1u; }
                    if (f > hh) { hh = f; fl = (fl & 12u) | 2u; }
                    h = hh;
                    const int q = (j - 1) & 7;
                    word |= fl << (4 * q);
                    if (q == 7 || j == n) {
                        drow[(long long)((j - 1) >> 3) * 32] = word;
                        word = 0;
                    }
                } else {
                    f = __viaddmax_s32(upf, -ge, up - go);
                    e = __viaddmax_s32(e, -ge, h - go);
                    const int d = diag + sub;
                    if (MODE == TW_END) {
                        h = __vimax3_s32_relu(d, f, e);
                        if (last_only ? (j == n && d > best) : h > best) { best = last_only ? d : h; bi = i; bj = j; }
                    } else {
                        if (MODE == TW_START && d == aux && bi == 0) { bi = i; bj = j; }
                        h = __vimax3_s32(d, f, e);
                    }
                }
                if (lane == last) { Hrow[j] = h; Frow[j] = f; }
            }
            diag = up;
        }
        if (quit) break;
        if (NW != 1) tw_publish<NW>(S, wp, base + (n + 1) + n);
        __syncwarp();
        const bool done = (MODE == TW_START && __ballot_sync(TW_FULL, bi != 0)) ||
                          (MODE == TW_END && aux >= 0 && __ballot_sync(TW_FULL, best >= aux));
        if (done) {
            if (NW != 1 && lane == 0) atomicMin((int*)&S.stop, strip);
            break;
        }
    }
    TwResult r;
    if (MODE == TW_END) tw_warp_best(best, bi, bj);
    else if (MODE == TW_START) tw_warp_first(bi, bj);
    if (NW > 1) {
        // combine the warps: END as above; START: the first row with a hit
        if (lane == 0) { S.rb[wp] = best; S.ri[wp] = bi; S.rj[wp] = bj; }
        __syncthreads();
        for (int x = 0; x < NW; ++x) {
            const int ob = S.rb[x], oi = S.ri[x], oj = S.rj[x];
            if (MODE == TW_END) {
                if (ob > best || (ob == best && (oi < bi || (oi == bi && oj < bj)))) { best = ob; bi = oi; bj = oj; }
            } else if (MODE == TW_START) {
                if (oi != 0 && (bi == 0 || oi < bi)) { bi = oi; bj = oj; }
            }
        }
    }
    if (MODE == TW_END && best == 0) { bi = 0; bj = 0; }
    r.best = best;
    r.bi = bi;
    r.bj = bj;
    return r;
}

__device__ __forceinline__ void tw_load_matrix(TwShared& S, const int* __restrict__ M, const int K)
{
    for (int x = threadIdx.x; x < K * K; x += blockDim.x) S.M[x] = M[x];
    __syncthreads();
}

// Problem p of this warp (shape _1) or block (_8); the block is TW_WARPS warps.
#define TW_PROBLEM(NW)                                                                           \
    __shared__ TwShared S;                                                                       \
    tw_load_matrix(S, M, K);                                                                     \
    const int w = threadIdx.x >> 5;                                                              \
    const int wp = NW > 1 ? w : 0;                                                               \
    const int p = NW > 1 ? blockIdx.x : blockIdx.x * TW_WARPS + w;                               \
    if (p >= nprob) return;                                                                      \
    const long long* d = desc + (long long)p * TW_FIELDS;                                        \
    const int m = (int)d[1], n = (int)d[3];                                                      \
    const int step = d[4] ? -1 : 1;                                                              \
    int* Hrow = rows + d[5];                                                                     \
    int* Frow = Hrow + (n + 1);                                                                  \
    const bool writer = (threadIdx.x & 31) == 0 && wp == 0;

#define TW_ARGS const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,        \
    const long long* __restrict__ desc, const int nprob, const int* __restrict__ M, const int K, \
    const int go, const int ge, int* __restrict__ rows

// out[3p .. 3p + 2] = best, i_end, j_end (1-based; 0 0 0 when best == 0).
template <int NW>
__device__ void tw_sw_end(TW_ARGS, int* __restrict__ out)
{
    TW_PROBLEM(NW)
    const TwResult r = tw_wave<TW_END, NW>(S, w, wp, K, A + d[0], B + d[2], step, m, n, go, ge, (int)d[8], Hrow,
                                           Frow, nullptr, d[9] != 0);
    if (writer) {
        out[3 * p] = r.best;
        out[3 * p + 1] = r.bi;
        out[3 * p + 2] = r.bj;
    }
}

// out[2p], out[2p + 1] = ri, rj (0 0: the target score was not reached).
template <int NW>
__device__ void tw_sw_start(TW_ARGS, int* __restrict__ out)
{
    TW_PROBLEM(NW)
    const TwResult r = tw_wave<TW_START, NW>(S, w, wp, K, A + d[0], B + d[2], step, m, n, go, ge, (int)d[8], Hrow,
                                             Frow, nullptr);
    if (writer) {
        out[2 * p] = r.bi;
        out[2 * p + 1] = r.bj;
    }
}

// Row m of a global pass: H at rows + d[5], F after it (column 0: H(m, 0) in both).
template <int NW>
__device__ void tw_nw_last(TW_ARGS)
{
    TW_PROBLEM(NW)
    const int lead = (int)d[8];
    tw_wave<TW_LAST, NW>(S, w, wp, K, A + d[0], B + d[2], step, m, n, go, ge, lead, Hrow, Frow, nullptr);
    if (NW > 1) __syncthreads();
    if (writer) {
        const int c0 = -(lead + (m - 1) * ge);
        Hrow[0] = c0;
        Frow[0] = c0;
    }
}

// An optimal global path: ops (0 pair, 1 row letter against a gap, 2 column
// letter against a gap) written backwards at ops + d[7]; res[2p] = their
// number, res[2p + 1] = the path's score.
template <int NW>
__device__ void tw_nw_path(TW_ARGS, unsigned int* __restrict__ dirs, unsigned char* __restrict__ ops,
                           int* __restrict__ res)
{
    TW_PROBLEM(NW)
    const int lead = (int)d[8], tail = (int)d[9];
    unsigned int* D = dirs + d[6];
    tw_wave<TW_PATH, NW>(S, w, wp, K, A + d[0], B + d[2], step, m, n, go, ge, lead, Hrow, Frow, D);
    __threadfence_block();
    if (NW > 1) __syncthreads(); else __syncwarp();
    if (!writer) return;
    int fin = tw_load<NW>(Hrow + n);
    int state = 0;
    if (m > 0 && n > 0) {
        const int alt = tw_load<NW>(Frow + n) + go - tail;
        if (alt > fin) { fin = alt; state = 2; }
    }
    const int W = (n + 7) >> 3;
    unsigned char* out = ops + d[7];
    int c = 0, i = m, j = n;
    while (i > 0 || j > 0) {
        if (i == 0) { out[c++] = 2; --j; }
        else if (j == 0) { out[c++] = 1; --i; }
        else {
            const unsigned int word =
                tw_load<NW>((const int*)D + ((long long)((i - 1) >> 5) * W + ((j - 1) >> 3)) * 32 + ((i - 1) & 31));
            const unsigned int fl = (word >> (4 * ((j - 1) & 7))) & 15u;
            if (state == 0) {
                const unsigned int src = fl & 3u;
                if (src == 0) { out[c++] = 0; --i; --j; }
                else state = (int)src;
            } else if (state == 1) {
                out[c++] = 2;
                if (!(fl & 4u)) state = 0;
                --j;
            } else {
                out[c++] = 1;
                if (!(fl & 8u)) state = 0;
                --i;
            }
        }
    }
    res[2 * p] = c;
    res[2 * p + 1] = fin;
}

// Each piece's ops, written backwards by tw_nw_path (count[p] of them at
// ops + from[p]), forwards and end to end at out + to[p]. One warp a piece.
#if TW_IN(4)
extern "C" __global__ void __launch_bounds__(32 * TW_WARPS)
tw_forward_ops(const unsigned char* __restrict__ ops, const long long* __restrict__ from,
               const long long* __restrict__ to, const int* __restrict__ count, const int nprob,
               unsigned char* __restrict__ out)
{
    const int p = blockIdx.x * TW_WARPS + (threadIdx.x >> 5);
    if (p >= nprob) return;
    const int c = count[p];
    const unsigned char* src = ops + from[p] + (c - 1);
    unsigned char* dst = out + to[p];
    for (int t = threadIdx.x & 31; t < c; t += 32) dst[t] = src[-t];
}

// The CIGAR runs of whole paths (forwards, end to end: path p is count[p] ops
// at ops + from[p]), as swgpu.align.runs.path_runs makes them: each column's
// letter ('=' for equal codes that are not `unknown`, 'X', 'I' for op 1, 'D'
// for op 2), runs of equal letters. One thread a path, walking it from the
// codes A[qpos[p]] and B[tpos[p]]. Without `roff` (count pass): the path's
// runs, matches, mismatches, gap columns, gap opens (runs of I or D) and
// letters used of each sequence, at stats[f * nprob + p]; with it (fill pass):
// run p's lengths and letters from roff[p] on.
template <bool FILL>
__device__ __forceinline__ void tw_path_runs(const unsigned char* __restrict__ ops, const long long* __restrict__ from,
                                             const int* __restrict__ count, const unsigned char* __restrict__ A,
                                             const unsigned char* __restrict__ B, const long long* __restrict__ qpos,
                                             const long long* __restrict__ tpos, const int unknown, const int nprob,
                                             long long* __restrict__ stats, const long long* __restrict__ roff,
                                             int* __restrict__ run_len, unsigned char* __restrict__ run_op)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nprob) return;
    const unsigned char* path = ops + from[p];
    const int c = count[p];
    long long i = qpos[p], j = tpos[p];
    long long r = FILL ? roff[p] : 0;
    long long runs = 0, m = 0, x = 0, gaps = 0, opens = 0;
    int prev = 0, len = 0;
    for (int k = 0; k < c; ++k) {
        const unsigned char o = path[k];
        int letter;
        if (o == 0) {
            const unsigned char a = A[i++], b = B[j++];
            if (a == b && a != unknown) { letter = '='; ++m; } else { letter = 'X'; ++x; }
        } else if (o == 1) {
            letter = 'I'; ++i; ++gaps;
        } else {
            letter = 'D'; ++j; ++gaps;
        }
        if (letter == prev) {
            ++len;
            continue;
        }
        if (FILL && runs) { run_len[r] = len; run_op[r] = (unsigned char)prev; ++r; }
        if (letter == 'I' || letter == 'D') ++opens;
        ++runs;
        prev = letter;
        len = 1;
    }
    if (FILL) {
        if (runs) { run_len[r] = len; run_op[r] = (unsigned char)prev; }
        return;
    }
    stats[p] = runs;
    stats[nprob + p] = m;
    stats[2 * nprob + p] = x;
    stats[3 * nprob + p] = gaps;
    stats[4 * nprob + p] = opens;
    stats[5 * nprob + p] = i - qpos[p];
    stats[6 * nprob + p] = j - tpos[p];
}

#define TW_RUNS_ARGS                                                                                             \
    const unsigned char *__restrict__ ops, const long long *__restrict__ from, const int *__restrict__ count,   \
        const unsigned char *__restrict__ A, const unsigned char *__restrict__ B,                               \
        const long long *__restrict__ qpos, const long long *__restrict__ tpos, const int unknown, const int nprob
extern "C" __global__ void __launch_bounds__(256)
tw_path_runs_count(TW_RUNS_ARGS, long long* __restrict__ stats)
{ tw_path_runs<false>(ops, from, count, A, B, qpos, tpos, unknown, nprob, stats, nullptr, nullptr, nullptr); }
extern "C" __global__ void __launch_bounds__(256)
tw_path_runs_fill(TW_RUNS_ARGS, const long long* __restrict__ roff, int* __restrict__ run_len,
                  unsigned char* __restrict__ run_op)
{ tw_path_runs<true>(ops, from, count, A, B, qpos, tpos, unknown, nprob, nullptr, roff, run_len, run_op); }
#endif

#define TW_END_KERNEL(NW)                                                                                      \
    extern "C" __global__ void __launch_bounds__(32 * TW_WARPS) tw_sw_end_##NW(TW_ARGS, int* __restrict__ out) \
    { tw_sw_end<NW>(A, B, desc, nprob, M, K, go, ge, rows, out); }
#define TW_START_KERNEL(NW)                                                                                    \
    extern "C" __global__ void __launch_bounds__(32 * TW_WARPS) tw_sw_start_##NW(TW_ARGS, int* __restrict__ out) \
    { tw_sw_start<NW>(A, B, desc, nprob, M, K, go, ge, rows, out); }
#define TW_LAST_KERNEL(NW)                                                                                     \
    extern "C" __global__ void __launch_bounds__(32 * TW_WARPS) tw_nw_last_##NW(TW_ARGS)                       \
    { tw_nw_last<NW>(A, B, desc, nprob, M, K, go, ge, rows); }
#define TW_PATH_KERNEL(NW)                                                                                     \
    extern "C" __global__ void __launch_bounds__(32 * TW_WARPS)                                                \
    tw_nw_path_##NW(TW_ARGS, unsigned int* __restrict__ dirs, unsigned char* __restrict__ ops, int* __restrict__ res) \
    { tw_nw_path<NW>(A, B, desc, nprob, M, K, go, ge, rows, dirs, ops, res); }

#if TW_IN(1)
TW_END_KERNEL(1)
TW_END_KERNEL(8)
#endif
#if TW_IN(2)
TW_START_KERNEL(1)
TW_START_KERNEL(8)
#endif
#if TW_IN(3)
TW_LAST_KERNEL(1)
TW_LAST_KERNEL(8)
#endif
#if TW_IN(4)
TW_PATH_KERNEL(1)
TW_PATH_KERNEL(8)
#endif


#include "sw_traceback_tall.cuh"

// Problem p's forward last row (H at rows + desc[2p][5], F after it, n + 1
// each) and the reversed pass's (desc[2p + 1]) meet: j1 = the first column of
// the best sum of H values, j2 = the first of the best sum of F values plus
// go - ge, over the columns inside both rows' bands (tw_band_row; outside them
// no path scores the piece's bound). out[4p ..] = 0, j1 and the two H values
// there when the H sum is at least the F sum, else 1, j2 and the two F values.
// One warp a problem.
#if TW_IN(3)
extern "C" __global__ void __launch_bounds__(32 * TW_WARPS)
tw_split(const int* __restrict__ rows, const long long* __restrict__ desc, const int nprob, const int go,
         const int ge, const int mmax, int* __restrict__ out)
{
    const int p = blockIdx.x * TW_WARPS + (threadIdx.x >> 5);
    if (p >= nprob) return;
    const int lane = threadIdx.x & 31;
    const long long* df = desc + (long long)(2 * p) * TW_FIELDS;
    const long long* db = df + TW_FIELDS;
    const int n = (int)df[3];
    const int* cc = rows + df[5];
    const int* dd = cc + (n + 1);
    const int* rr = rows + db[5];
    const int* ss = rr + (n + 1);
    int a1, e1, a2, e2;
    const TwBand band = tw_band_of(df, go, ge, mmax, false);
    tw_band_row<TW_LAST>(band, (int)df[1], a1, e1);
    tw_band_row<TW_LAST>(band, (int)db[1], a2, e2);
    long long b1 = -0x7fffffffffffffffLL - 1, b2 = b1;
    int j1 = 0, j2 = 0;
    for (int j = lane; j <= n; j += 32) {
        if ((j != 0 && (j < a1 || j > e1)) || (j != n && (n - j < a2 || n - j > e2))) continue;
        const long long x = (long long)cc[j] + rr[n - j];
        const long long y = (long long)dd[j] + ss[n - j] + (go - ge);
        if (x > b1) { b1 = x; j1 = j; }
        if (y > b2) { b2 = y; j2 = j; }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const long long x = __shfl_xor_sync(TW_FULL, b1, o);
        const int xj = __shfl_xor_sync(TW_FULL, j1, o);
        if (x > b1 || (x == b1 && xj < j1)) { b1 = x; j1 = xj; }
        const long long y = __shfl_xor_sync(TW_FULL, b2, o);
        const int yj = __shfl_xor_sync(TW_FULL, j2, o);
        if (y > b2 || (y == b2 && yj < j2)) { b2 = y; j2 = yj; }
    }
    if (lane == 0) {
        const bool join = b1 >= b2;
        const int j = join ? j1 : j2;
        out[4 * p] = join ? 0 : 1;
        out[4 * p + 1] = j;
        out[4 * p + 2] = join ? cc[j] : dd[j];
        out[4 * p + 3] = join ? rr[n - j] : ss[n - j];
    }
}
#endif
