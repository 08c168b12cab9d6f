// Scan: candidate hit end points of short queries along long targets.
//
// sc_colmax_R, sc_colmax_pR -- for each problem (a query against a window of a record), the
// best score of an alignment ending with a pair at each window column:
// colmax[j] = max(0, max_i H(i - 1, j - 1) + s(q_i, t_j)) of the local matrix
// of the query against the window (a pass that starts fresh at the window's
// first column; the host puts span - 1 letters before the columns it needs).
// One warp per problem, a wavefront over strips of 32 R rows (the query
// padded at its top to whole strips with rows that score 0, see sc_strip;
// lane l holds R rows of the strip and runs one column behind lane l - 1;
// H, F and the column maximum so far pass down by shuffles, once per R
// cells; the strip's last row goes to a row buffer -- H, the F entering the
// next row, and the column maximum -- for the next strip). The row
// buffer is read 32 columns at a time, one column per lane, a chunk ahead,
// and handed to lane 0 by a shuffle. Exact 32-bit arithmetic, DPX max
// instructions. The "p" shapes hold each row's scores (alphabets of up to 8
// letters, scores within a byte) in two registers and read them with one
// byte permute instead of a shared-memory load.
//
// sc_points -- the end-point rule of swgpu.align.scan_rule on those column
// maxima: column j of the problem's own range is a candidate when colmax[j]
// >= the problem's threshold, > every colmax in the r columns before it and
// >= every one in the r columns after it, within the record. Those columns
// lie in the problem's window, or -- where field 11 names a neighbour on
// that side -- in the own ranges of the problems of the same query next to
// it in the record (the descriptors before and after it, in the same
// launch), read where they wrote them. Candidates of one problem are more
// than r columns apart.
//
// Problem p: desc[p * SC_FIELDS + ...]
//   0 first query letter in A   1 m (rows)   2 first window letter in B
//   3 n (window columns)        4 row buffer offset (ints: H, F, C; n + 1 each)
//   5 own columns: first (window coordinates, 0-based)   6 own columns: end
//   7 r (neighbourhood)         8 threshold              9 genome column of the window's first letter
//   10 output slot (query index)
//   11 neighbours: bit 0 the problem before (desc row p - 1) holds the own
//      columns that end where this one's start, bit 1 the one after holds
//      those that start where this one's end

#define SC_NEG (-(1 << 29))
#define SC_FIELDS 12
#define SC_WARPS 8
#define SC_FULL 0xffffffffu
#define SC_MAXK 32

// PTX prmt in its default mode: a selector nibble with bit 3 set replicates
// the sign of the byte it selects (so the result is that byte sign-extended).
__device__ __forceinline__ int sc_prmt(const unsigned int x, const unsigned int y, const unsigned int sel)
{
    int r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    return r;
}

// The maximum of cm and dd[0 .. R - 1], three at a time (32-bit values, or
// two 16-bit halves of each word).
__device__ __forceinline__ int sc_max3(const int a, const int b, const int c) { return __vimax3_s32(a, b, c); }
__device__ __forceinline__ unsigned int sc_max3(const unsigned int a, const unsigned int b, const unsigned int c)
{
    return __vimax3_s16x2(a, b, c);
}
template <int R, typename V>
__device__ __forceinline__ V sc_max_rows(V cm, const V (&dd)[R])
{
#pragma unroll
    for (int k = 0; k + 1 < R; k += 2) cm = sc_max3(cm, dd[k], dd[k + 1]);
    if constexpr ((R & 1) != 0) cm = sc_max3(cm, dd[R - 1], dd[R - 1]);
    return cm;
}

// One strip of 32 R rows of a problem, all its columns, by one warp. The row
// above comes from (Hin, Fin, Cin) and the strip's last row goes to (Hout,
// Fout, Cout) (the same buffer when one warp runs every strip of the problem).
// SYNC: the row above is being written by another warp, which publishes in
// *wait_on how many columns it has finished; this warp publishes its own in
// *publish (row buffers read and written through L2 only).
//
// The query is padded at its top to whole strips: `pad` rows before row 1
// (in strip 0) whose scores against every letter are 0. They keep H = 0 and
// pass F = -go down, exactly the boundary row, and add nothing to a column
// maximum (every column maximum is at least 0), so every lane computes all R
// of its rows without a branch or a select. The last lane's results (the
// strip's last row) are gathered one column a step by a shuffle, lane
// s mod 32 keeping column s - 30, and written 32 columns at a time.
template <int R, bool PACK, bool SYNC>
__device__ __forceinline__ void sc_strip(const unsigned char* __restrict__ a, const int pad,
                                         const unsigned char* __restrict__ b, const int n, const int strip,
                                         const int* __restrict__ SM, const int K, const int go, const int ge,
                                         const int* Hin, const int* Fin, const int* Cin, int* Hout, int* Fout,
                                         int* Cout, const bool write_hf, const volatile int* wait_on,
                                         volatile int* publish, const bool ext_in = false,
                                         const bool ext_out = false)
{
    const int lane = threadIdx.x & 31;
    const bool above = strip > 0;  // (warp-uniform) the first strip starts from H = 0, F = -go, C = 0
    const int i0 = strip * 32 * R + lane * R - pad;  // this lane's rows are i0 + 1 .. i0 + R (<= 0: padding)
    // PACK (at most 8 letters, scores in -128..127): row k's scores against
    // letters 0-7 are the bytes of (w1[k]:w0[k]), read by one byte permute.
    // Padding rows: all scores 0 (PACK: zero bytes; else the zero row K * K of SM).
    int off[R], H[R], E[R];
    unsigned int w0[PACK ? R : 1], w1[PACK ? R : 1];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        const bool live = i0 + k >= 0;
        off[k] = live ? (int)a[i0 + k] * K : K * K;
        H[k] = 0;
        E[k] = SC_NEG;
        if constexpr (PACK) {
            unsigned int x0 = 0, x1 = 0;
            for (int c = 0; c < K; ++c) {
                const unsigned int v = (unsigned int)(SM[off[k] + c] & 0xff);
                if (c < 4) x0 |= v << (8 * c); else x1 |= v << (8 * (c - 4));
            }
            w0[k] = x0;
            w1[k] = x1;
        }
    }
    int seen = 0;  // (lane 0) columns of the row above known written: polled again only past them
    auto wait_for = [&](const int cols) {  // the row above holds columns 1 .. cols
        if constexpr (SYNC) {
            if (above) {
                if (lane == 0) {
                    const int need = min(n, cols);
                    if (seen < need) {
                        int got;
                        while ((got = *wait_on) < need) __nanosleep(64);
                        seen = got;
                        if (ext_in) __threadfence_system(); else __threadfence();
                    }
                }
                __syncwarp();
            }
        }
    };
    auto load = [&](const int* p, const int j) -> int {
        // (a row another GPU writes, in host memory: read past every cache)
        if constexpr (SYNC) return ext_in ? __ldcv(p + j) : __ldcg(p + j); else return p[j];
    };
    int hb = 0, fb = -go, cm = 0, bc = 0;  // what goes down: H of the last row, F below it, column max
    int diag = 0;                          // H(i0, j - 1)
    int ch = 0, cf = -go, cc = 0, cb = 0, nh = 0, nf = -go, nc = 0, nb = 0;
    int kc = 0, kh = 0, kf = 0;            // the last lane's results of column s - 30, kept by lane s mod 32
    wait_for(64);
    {
        const int j = lane + 1;
        if (j <= n) { cb = b[j - 1]; if (above) { ch = load(Hin, j); cf = load(Fin, j); cc = load(Cin, j); } }
        const int j2 = j + 32;
        if (j2 <= n) { nb = b[j2 - 1]; if (above) { nh = load(Hin, j2); nf = load(Fin, j2); nc = load(Cin, j2); } }
    }
    const int steps = n + 31;
    for (int s = 0; s < steps; ++s) {
        const int slot = s & 31;
        if (slot == 0 && s > 0) {
            ch = nh; cf = nf; cc = nc; cb = nb;
            const int j2 = (((s >> 5) + 1) << 5) + lane + 1;
            wait_for((((s >> 5) + 2) << 5));
            if (j2 <= n) { nb = b[j2 - 1]; if (above) { nh = load(Hin, j2); nf = load(Fin, j2); nc = load(Cin, j2); } }
        }
        int up = __shfl_up_sync(SC_FULL, hb, 1);
        int f = __shfl_up_sync(SC_FULL, fb, 1);
        int upc = __shfl_up_sync(SC_FULL, cm, 1);
        int ub = __shfl_up_sync(SC_FULL, bc, 1);
        const int bb = __shfl_sync(SC_FULL, cb, slot);
        int bh = 0, bf = -go, bcm = 0;
        if (above) {
            bh = __shfl_sync(SC_FULL, ch, slot);
            bf = __shfl_sync(SC_FULL, cf, slot);
            bcm = __shfl_sync(SC_FULL, cc, slot);
        }
        const int j = s - lane + 1;
        if (lane == 0) { up = bh; f = bf; upc = bcm; ub = bb; }
        if (j >= 1 && j <= n) {
            bc = ub;
            cm = upc;
            // byte ub, its sign replicated into the upper three bytes
            const unsigned int sel = (unsigned int)ub | ((8u | (unsigned int)ub) * 0x1110u);
            // first what needs only the previous column: the diagonal
            // terms, E of every row, the column maximum (two rows an
            // instruction); then the chain down the rows
            int dd[R];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                int sub;
                if constexpr (PACK) sub = sc_prmt(w0[k], w1[k], sel);
                else sub = SM[off[k] + ub];
                dd[k] = (k == 0 ? diag : H[k - 1]) + sub;
                E[k] = __viaddmax_s32(E[k], -ge, H[k] - go);
            }
            cm = sc_max_rows<R>(cm, dd);
#pragma unroll
            for (int k = 0; k < R; ++k) {
                H[k] = __vimax3_s32_relu(dd[k], f, E[k]);
                f = __viaddmax_s32(f, -ge, H[k] - go);  // F entering the next row
            }
            hb = H[R - 1];
            fb = f;  // F entering the row below this lane's last row
        }
        diag = up;
        // the last lane's column s - 30, kept by lane `slot`; every 32 steps (and at
        // the end) each lane writes the column it keeps: 32 columns at once
        const int oc = __shfl_sync(SC_FULL, cm, 31);
        int oh = 0, of = 0;
        if (write_hf) {
            oh = __shfl_sync(SC_FULL, hb, 31);
            of = __shfl_sync(SC_FULL, fb, 31);
        }
        if (lane == slot) { kc = oc; kh = oh; kf = of; }
        if (slot == 31 || s == steps - 1) {
            const int jj = s - slot + lane - 30;  // the column this lane keeps
            if (lane <= slot && jj >= 1 && jj <= n) {
                if constexpr (SYNC) {
                    __stcg(Cout + jj, kc);
                    if (write_hf) { __stcg(Hout + jj, kh); __stcg(Fout + jj, kf); }
                } else {
                    Cout[jj] = kc;
                    if (write_hf) { Hout[jj] = kh; Fout[jj] = kf; }
                }
            }
            // columns 1 .. s - 30 are written: tell the strip below (on another GPU, through host
            // memory: every 128 columns, each a fence of the whole system)
            if (SYNC && (!ext_out || ((s >> 5) & 3) == 3)) {
                if (ext_out) __threadfence_system(); else __threadfence();
                __syncwarp();
                if (lane == 31) *publish = min(n, s - 30);
            }
        }
    }
    if constexpr (SYNC) {
        if (lane == 31) {
            if (ext_out) __threadfence_system(); else __threadfence();
            *publish = n;
        }
    }
    __syncwarp();
}

template <int R, bool PACK>
__device__ __forceinline__ void sc_colmax_body(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                                               const long long* __restrict__ desc, const int nprob,
                                               const int* __restrict__ SM, const int K, const int go, const int ge,
                                               int* __restrict__ rows)
{
    const int p = blockIdx.x * SC_WARPS + (threadIdx.x >> 5);
    if (p >= nprob) return;
    const long long* d = desc + (long long)p * SC_FIELDS;
    const int m = (int)d[1], n = (int)d[3];
    int* Hrow = rows + d[4];
    int* Frow = Hrow + (n + 1);  // F entering the first row of the next strip
    int* Crow = Frow + (n + 1);  // column maxima of the rows so far
    const int strips = (m + 32 * R - 1) / (32 * R);
    const int pad = strips * 32 * R - m;  // padding rows at the top of strip 0
    for (int strip = 0; strip < strips; ++strip)
        sc_strip<R, PACK, false>(A + d[0], pad, B + d[2], n, strip, SM, K, go, ge, Hrow, Frow, Crow, Hrow, Frow,
                                 Crow, strip + 1 < strips, nullptr, nullptr);
}

// sc_long_R, sc_long_pR -- the same column maxima for long queries: every
// warp of a grid that fits on the GPU at once takes strips g, g + W, g + 2W,
// ... of the strips of all problems in order (W warps in all), so the strips
// of one problem run side by side, each one a wavefront behind the strip
// above it (which it follows through progress[g - 1]). A problem's row
// buffer holds two rows (strip s reads slot (s - 1) & 1, writes slot s & 1):
// the strip two below writes a column only after the strip between has read
// it. strip_first[p]: index of the first strip of problem p (prefix sums).
template <int R, bool PACK>
__device__ __forceinline__ void sc_long_body(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                                             const long long* __restrict__ desc, const int nprob,
                                             const long long* __restrict__ strip_first, const long long total,
                                             const int* __restrict__ SM, const int K, const int go, const int ge,
                                             int* __restrict__ rows, int* __restrict__ progress)
{
    const long long W = (long long)gridDim.x * SC_WARPS;
    for (long long g = (long long)blockIdx.x * SC_WARPS + (threadIdx.x >> 5); g < total; g += W) {
        int lo = 0, hi = nprob - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (strip_first[mid] <= g) lo = mid; else hi = mid - 1;
        }
        const long long* d = desc + (long long)lo * SC_FIELDS;
        const int m = (int)d[1], n = (int)d[3];
        const int s = (int)(g - strip_first[lo]);
        const int strips = (int)(strip_first[lo + 1] - strip_first[lo]);  // (m + 32 R - 1) / (32 R)
        const int pad = strips * 32 * R - m;
        const bool multi = s + 1 < strips;
        int* in = rows + d[4] + (long long)((s + 1) & 1) * 3 * (n + 1);
        int* out = rows + d[4] + (long long)(s & 1) * 3 * (n + 1);
        sc_strip<R, PACK, true>(A + d[0], pad, B + d[2], n, s, SM, K, go, ge, in, in + (n + 1), in + 2 * (n + 1), out,
                                out + (n + 1), out + 2 * (n + 1), multi, progress + (s > 0 ? g - 1 : g),
                                progress + g);
    }
}

// sc_band_R, sc_band_pR -- sc_long over a band of each problem's strips, so
// that several GPUs share a long query's rows: this GPU runs strips
// band[4 p] .. band[4 p + 1] - 1 of problem p (band_first: prefix sums of the
// band's strips, as strip_first), the first of them reading the row above
// from ext_in + band[4 p + 2] (H, F, C of n + 1 columns each, that the GPU of
// the band above writes -- in this GPU's memory, through the GPUs' link, or
// in host memory that both map; -1: the band starts the problem) as that GPU
// publishes in eprog_in[p] (an int per problem beside those rows); its last
// strip, unless the problem's last, writes its row to ext_out + band[4 p + 3]
// and publishes in eprog_out[p]. Strips within the band
// use the row buffer and progress as sc_long does (slot parity by the
// strip's place in the band). The strips run in rounds (warp w takes strip
// round_first[r] + w of round r, if below round_first[r + 1]): the host
// puts each problem's band in one round where it fits, so that a band
// whose row above comes from another GPU's round r is also in round r here
// (a band split over rounds would wait in one round for a strip that GPU
// runs in the next).
template <int R, bool PACK>
__device__ __forceinline__ void sc_band_body(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                                             const long long* __restrict__ desc, const int nprob,
                                             const long long* __restrict__ band,
                                             const long long* __restrict__ band_first,
                                             const long long* __restrict__ round_first, const int nrounds,
                                             const int* __restrict__ SM, const int K, const int go, const int ge,
                                             int* __restrict__ rows, int* __restrict__ progress, int* ext_rows_in,
                                             int* ext_rows_out, int* eprog_in, int* eprog_out)
{
    const long long w = (long long)blockIdx.x * SC_WARPS + (threadIdx.x >> 5);
    for (int r = 0; r < nrounds; ++r) {
        const long long g = round_first[r] + w;
        if (g >= round_first[r + 1]) continue;
        int lo = 0, hi = nprob - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (band_first[mid] <= g) lo = mid; else hi = mid - 1;
        }
        const long long* d = desc + (long long)lo * SC_FIELDS;
        const long long* bd = band + 4LL * lo;
        const int m = (int)d[1], n = (int)d[3];
        const int local = (int)(g - band_first[lo]);
        const int s = (int)bd[0] + local;
        const int strips = (m + 32 * R - 1) / (32 * R);
        const int pad = strips * 32 * R - m;
        const bool multi = s + 1 < strips;
        const bool ext_in = local == 0 && s > 0;
        const bool ext_out = s + 1 == (int)bd[1] && multi;
        int* in = ext_in ? ext_rows_in + bd[2] : rows + d[4] + (long long)((local + 1) & 1) * 3 * (n + 1);
        int* out = ext_out ? ext_rows_out + bd[3] : rows + d[4] + (long long)(local & 1) * 3 * (n + 1);
        sc_strip<R, PACK, true>(A + d[0], pad, B + d[2], n, s, SM, K, go, ge, in, in + (n + 1), in + 2 * (n + 1), out,
                                out + (n + 1), out + 2 * (n + 1), multi,
                                ext_in ? eprog_in + lo : progress + (local > 0 ? g - 1 : g),
                                ext_out ? eprog_out + lo : progress + g, ext_in, ext_out);
    }
}

#define SC_COLMAX(NAME, R, PACK)                                                                                 \
    extern "C" __global__ void __launch_bounds__(32 * SC_WARPS)                                                  \
    NAME(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,                              \
         const long long* __restrict__ desc, const int nprob, const int* __restrict__ M, const int K,           \
         const int go, const int ge, int* __restrict__ rows)                                                    \
    {                                                                                                            \
        __shared__ int SM[SC_MAXK * SC_MAXK + SC_MAXK];  /* and a zero row K * K, for padding rows */           \
        for (int x = threadIdx.x; x < K * K + K; x += blockDim.x) SM[x] = x < K * K ? M[x] : 0;                 \
        __syncthreads();                                                                                         \
        sc_colmax_body<R, PACK>(A, B, desc, nprob, SM, K, go, ge, rows);                                         \
    }

SC_COLMAX(sc_colmax_1, 1, false)
SC_COLMAX(sc_colmax_2, 2, false)
SC_COLMAX(sc_colmax_4, 4, false)
SC_COLMAX(sc_colmax_8, 8, false)
SC_COLMAX(sc_colmax_16, 16, false)
SC_COLMAX(sc_colmax_p1, 1, true)
SC_COLMAX(sc_colmax_p2, 2, true)
SC_COLMAX(sc_colmax_p4, 4, true)
SC_COLMAX(sc_colmax_p8, 8, true)
SC_COLMAX(sc_colmax_p16, 16, true)

#define SC_LONG(NAME, R, PACK)                                                                                   \
    extern "C" __global__ void __launch_bounds__(32 * SC_WARPS)                                                  \
    NAME(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,                              \
         const long long* __restrict__ desc, const int nprob, const long long* __restrict__ strip_first,        \
         const long long total, const int* __restrict__ M, const int K, const int go, const int ge,             \
         int* __restrict__ rows, int* __restrict__ progress)                                                    \
    {                                                                                                            \
        __shared__ int SM[SC_MAXK * SC_MAXK + SC_MAXK];  /* and a zero row K * K, for padding rows */           \
        for (int x = threadIdx.x; x < K * K + K; x += blockDim.x) SM[x] = x < K * K ? M[x] : 0;                 \
        __syncthreads();                                                                                         \
        sc_long_body<R, PACK>(A, B, desc, nprob, strip_first, total, SM, K, go, ge, rows, progress);            \
    }

SC_LONG(sc_long_16, 16, false)
SC_LONG(sc_long_p16, 16, true)

#define SC_BAND(NAME, R, PACK, MINB)                                                                             \
    extern "C" __global__ void __launch_bounds__(32 * SC_WARPS, MINB)                                            \
    NAME(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,                              \
         const long long* __restrict__ desc, const int nprob, const long long* __restrict__ band,               \
         const long long* __restrict__ band_first, const long long* __restrict__ round_first,                  \
         const int nrounds, const int* __restrict__ M, const int K, const int go, const int ge,                 \
         int* __restrict__ rows, int* __restrict__ progress, int* ext_in, int* ext_out, int* eprog_in,          \
         int* eprog_out)                                                                                        \
    {                                                                                                            \
        __shared__ int SM[SC_MAXK * SC_MAXK + SC_MAXK];  /* and a zero row K * K, for padding rows */           \
        for (int x = threadIdx.x; x < K * K + K; x += blockDim.x) SM[x] = x < K * K ? M[x] : 0;                 \
        __syncthreads();                                                                                         \
        sc_band_body<R, PACK>(A, B, desc, nprob, band, band_first, round_first, nrounds, SM, K, go, ge, rows,    \
                              progress, ext_in, ext_out, eprog_in, eprog_out);                                   \
    }

SC_BAND(sc_band_16, 16, false, 1)
SC_BAND(sc_band_p16, 16, true, 1)
SC_BAND(sc_band_8, 8, false, 3)  // (three blocks a multiprocessor: at most 85 registers)
SC_BAND(sc_band_p8, 8, true, 1)  // (95 registers: three blocks would spill)

// sc_pair_pR -- the column maxima of two problems of one query at once, in
// the two 16-bit halves of each register (DPX s16x2: the low half problem
// pairs[2 w], the high half pairs[2 w + 1], which may be the same problem):
// the wavefront of sc_strip for a query of one strip (m <= 32 R) with packed
// scores, where every score fits 16 bits (the host checks m * max + go <
// 2^14 and go, ge < 2^13, so E and F stay above -2^14 - ge). The two
// problems' letters of a column travel as one word (low byte, high byte),
// the row's scores of both come from one byte permute, and each cell pair
// costs six and a half instructions (the permute, the diagonal term, E, H,
// h - go, F, and the column maximum two rows at a time): HG keeps each
// row's h - go, which opens F below in this column and E to the right in
// the next (the 32-bit kernels do without: there the registers cost more
// occupancy than the instruction saves). On the H100 these kernels are
// bound by the integer pipe that runs the DPX and permute instructions.
// Columns past a problem's end read letter 0 and are not written.
#define SC_NEG16 0xc000c000u  // -2^14 in both halves

__device__ __forceinline__ unsigned int sc_pack16(const int x) { return ((unsigned int)x & 0xffffu) * 0x10001u; }

template <int R>
__device__ __forceinline__ void sc_pair_strip(const unsigned char* __restrict__ a, const int pad,
                                              const unsigned char* __restrict__ bA, const int nA,
                                              const unsigned char* __restrict__ bB, const int nB,
                                              const int* __restrict__ SM, const int K, const int go, const int ge,
                                              int* __restrict__ CA, int* __restrict__ CB)
{
    const int lane = threadIdx.x & 31;
    const int n = max(nA, nB);
    const int i0 = lane * R - pad;  // this lane's rows are i0 + 1 .. i0 + R (<= 0: padding, scores 0)
    const unsigned int GO = sc_pack16(-go), GE = sc_pack16(-ge);
    unsigned int w0[R], w1[R], H[R], HG[R], E[R];  // HG: H - go
#pragma unroll
    for (int k = 0; k < R; ++k) {
        const int off = i0 + k >= 0 ? (int)a[i0 + k] * K : K * K;
        unsigned int x0 = 0, x1 = 0;
        for (int c = 0; c < K; ++c) {
            const unsigned int v = (unsigned int)(SM[off + c] & 0xff);
            if (c < 4) x0 |= v << (8 * c); else x1 |= v << (8 * (c - 4));
        }
        w0[k] = x0;
        w1[k] = x1;
        H[k] = 0;
        HG[k] = GO;
        E[k] = SC_NEG16;
    }
    auto letters = [&](const int j) -> unsigned int {  // column j (1-based) of both problems
        const unsigned int lo = j <= nA ? bA[j - 1] : 0u, hi = j <= nB ? bB[j - 1] : 0u;
        return lo | (hi << 8);
    };
    unsigned int hb = 0, fb = GO, cm = 0, bc = 0, diag = 0, kc = 0;
    unsigned int cb = lane + 1 <= n ? letters(lane + 1) : 0u, nb = lane + 33 <= n ? letters(lane + 33) : 0u;
    const int steps = n + 31;
    for (int s = 0; s < steps; ++s) {
        const int slot = s & 31;
        if (slot == 0 && s > 0) {
            cb = nb;
            const int j2 = (((s >> 5) + 1) << 5) + lane + 1;
            nb = j2 <= n ? letters(j2) : 0u;
        }
        unsigned int up = __shfl_up_sync(SC_FULL, hb, 1);
        unsigned int f = __shfl_up_sync(SC_FULL, fb, 1);
        unsigned int upc = __shfl_up_sync(SC_FULL, cm, 1);
        unsigned int ub = __shfl_up_sync(SC_FULL, bc, 1);
        const unsigned int bb = __shfl_sync(SC_FULL, cb, slot);
        const int j = s - lane + 1;
        if (lane == 0) { up = 0; f = GO; upc = 0; ub = bb; }
        if (j >= 1 && j <= n) {
            bc = ub;
            cm = upc;
            // selector: byte lo, its sign, byte hi, its sign (lo, hi < 8)
            const unsigned int sel = ub | ((ub | 0x0808u) << 4);
            // as in sc_strip: the diagonal terms, E and the column maximum
            // of every row first, then the chain down the rows
            unsigned int dd[R];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const unsigned int sub = (unsigned int)sc_prmt(w0[k], w1[k], sel);
                dd[k] = __viaddmax_s16x2(k == 0 ? diag : H[k - 1], sub, SC_NEG16);
                E[k] = __viaddmax_s16x2(E[k], GE, HG[k]);
            }
            cm = sc_max_rows<R>(cm, dd);
#pragma unroll
            for (int k = 0; k < R; ++k) {
                H[k] = __vimax3_s16x2_relu(dd[k], f, E[k]);
                HG[k] = __viaddmax_s16x2(H[k], GO, SC_NEG16);  // h - go
                f = __viaddmax_s16x2(f, GE, HG[k]);            // F entering the next row
            }
            hb = H[R - 1];
            fb = f;
        }
        diag = up;
        const unsigned int oc = __shfl_sync(SC_FULL, cm, 31);
        if (lane == slot) kc = oc;
        if (slot == 31 || s == steps - 1) {
            const int jj = s - slot + lane - 30;  // the column this lane keeps
            if (lane <= slot && jj >= 1) {
                if (jj <= nA) CA[jj] = (int)(short)(kc & 0xffffu);
                if (jj <= nB) CB[jj] = (int)kc >> 16;
            }
        }
    }
}

#define SC_PAIR(NAME, R)                                                                                         \
    extern "C" __global__ void __launch_bounds__(32 * SC_WARPS)                                                  \
    NAME(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,                              \
         const long long* __restrict__ desc, const int* __restrict__ pairs, const int npairs,                   \
         const int* __restrict__ M, const int K, const int go, const int ge, int* __restrict__ rows)            \
    {                                                                                                            \
        __shared__ int SM[SC_MAXK * SC_MAXK + SC_MAXK];                                                          \
        for (int x = threadIdx.x; x < K * K + K; x += blockDim.x) SM[x] = x < K * K ? M[x] : 0;                 \
        __syncthreads();                                                                                         \
        const int w = blockIdx.x * SC_WARPS + (threadIdx.x >> 5);                                                \
        if (w >= npairs) return;                                                                                 \
        const long long* dA = desc + (long long)pairs[2 * w] * SC_FIELDS;                                        \
        const long long* dB = desc + (long long)pairs[2 * w + 1] * SC_FIELDS;                                    \
        const int m = (int)dA[1], nA = (int)dA[3], nB = (int)dB[3];                                              \
        sc_pair_strip<R>(A + dA[0], 32 * R - m, B + dA[2], nA, B + dB[2], nB, SM, K, go, ge,                     \
                         rows + dA[4] + 2 * (nA + 1), rows + dB[4] + 2 * (nB + 1));                              \
    }

SC_PAIR(sc_pair_p1, 1)
SC_PAIR(sc_pair_p2, 2)
SC_PAIR(sc_pair_p4, 4)
SC_PAIR(sc_pair_p8, 8)
SC_PAIR(sc_pair_p16, 16)

// The column maxima of a problem's window.
__device__ __forceinline__ const int* sc_colmax(const int* rows, const long long* d)
{
    return rows + d[4] + 2 * (d[3] + 1) + 1;
}

// Whether every column maximum in genome columns [g0, g1) of the neighbours
// before problem d (g1: where d's own columns start) is below v. Each
// neighbour holds exact maxima over its own columns, and the first of the
// chain (no neighbour before it) over its window from r columns before its
// own (as far as the record goes).
__device__ bool sc_below_before(const int* rows, const long long* d, long long g0, long long g1, const int v)
{
    while (g0 < g1) {
        d -= SC_FIELDS;
        const long long w0 = d[9], lo = (d[11] & 1) ? w0 + d[5] : w0;
        const int* C = sc_colmax(rows, d);
        for (long long g = max(g0, lo); g < g1; ++g)
            if (C[g - w0] >= v) return false;
        if (!(d[11] & 1)) break;
        g1 = lo;
    }
    return true;
}

// Whether every column maximum in genome columns [g0, g1) of the neighbours
// after problem d (g0: where d's own columns end) is at most v.
__device__ bool sc_below_after(const int* rows, const long long* d, long long g0, long long g1, const int v)
{
    while (g0 < g1) {
        d += SC_FIELDS;
        const long long w0 = d[9], hi = (d[11] & 2) ? w0 + d[6] : w0 + d[3];
        const int* C = sc_colmax(rows, d);
        for (long long g = g0; g < min(g1, hi); ++g)
            if (C[g - w0] > v) return false;
        if (!(d[11] & 2)) break;
        g0 = hi;
    }
    return true;
}

// Candidates of every problem, appended to (cols, scores, slots) at an atomic
// counter; cap: the room there (the host sizes it by the spacing above). A
// block per problem (grid-stride), its threads over the own columns: reads
// of C coalesced, and only a column at or above the threshold looks at its
// neighbours.
extern "C" __global__ void sc_points(const int* __restrict__ rows, const long long* __restrict__ desc,
                                     const int nprob, long long* __restrict__ cols, int* __restrict__ scores,
                                     int* __restrict__ slots, unsigned long long* __restrict__ count,
                                     const unsigned long long cap)
{
    for (int p = blockIdx.x; p < nprob; p += gridDim.x) {
        const long long* d = desc + (long long)p * SC_FIELDS;
        const int n = (int)d[3], r = (int)d[7], thr = (int)d[8];
        const int* C = sc_colmax(rows, d);  // colmax of window columns 0 .. n - 1
        // the columns read here; beyond them, the neighbours'
        const int lo = (d[11] & 1) ? (int)d[5] : 0, hi = (d[11] & 2) ? (int)d[6] : n;
        for (int j = (int)d[5] + threadIdx.x; j < (int)d[6]; j += blockDim.x) {
            const int v = __ldg(C + j);
            if (v < thr) continue;
            bool ok = true;
            for (int k = max(lo, j - r); k < j && ok; ++k) ok = C[k] < v;
            for (int k = j + 1; k <= min(hi - 1, j + r) && ok; ++k) ok = C[k] <= v;
            if (ok && j - r < lo && (d[11] & 1)) ok = sc_below_before(rows, d, d[9] + j - r, d[9] + lo, v);
            if (ok && j + r >= hi && (d[11] & 2)) ok = sc_below_after(rows, d, d[9] + hi, d[9] + j + r + 1, v);
            if (!ok) continue;
            const unsigned long long at = atomicAdd(count, 1ull);
            if (at < cap) {
                cols[at] = d[9] + j;
                scores[at] = v;
                slots[at] = (int)d[10];
            }
        }
    }
}

// Inclusive max-scan of x over the warp; each warp's total goes to
// wmax[warp] (visible to the block after the barrier inside).
__device__ __forceinline__ int sc_warp_scan(int x, int* wmax)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(SC_FULL, x, o);
        if (lane >= o) x = max(x, y);
    }
    if (lane == 31) wmax[threadIdx.x >> 5] = x;
    __syncthreads();
    return x;
}

// The problem of tile g (tile_first: prefix sums of the problems' tiles)
// and its row buffers for query row i (see sc_rowscan).
struct ScRow {
    const unsigned char* b;  // the problem's window
    const int* row;          // scores of query letter i against each letter
    const int* Hp;           // H, F of row i - 1
    const int* Fp;
    int* Hc;                 // H, F of row i
    int* Fc;
    int* C;                  // column maxima
    int m, n, t;             // rows, columns, the tile's index in its problem
};

__device__ __forceinline__ ScRow sc_row(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                                        const long long* __restrict__ desc, const int nprob,
                                        const long long* __restrict__ tile_first, const long long g,
                                        const int* SM, const int K, int* __restrict__ rows, const int i)
{
    int lo = 0, hi = nprob - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (tile_first[mid] <= g) lo = mid; else hi = mid - 1;
    }
    const long long* d = desc + (long long)lo * SC_FIELDS;
    ScRow r;
    r.m = (int)d[1];
    r.n = (int)d[3];
    r.t = (int)(g - tile_first[lo]);
    r.b = B + d[2];
    r.row = SM + (i <= r.m ? (int)A[d[0] + i - 1] : 0) * K;
    int* base = rows + d[4];
    r.Hp = base + (long long)((i - 1) & 1) * 3 * (r.n + 1);
    r.Fp = r.Hp + (r.n + 1);
    r.Hc = base + (long long)(i & 1) * 3 * (r.n + 1);
    r.Fc = r.Hc + (r.n + 1);
    r.C = base + 2 * (r.n + 1);
    return r;
}

// sc_rowscan -- the seed method (Khajeh-Saeed et al., localized, with the
// mixed 8/32-bit words of Yasui and Ino): the matrix one query row at a
// time, each row's columns in parallel. One launch per row i; block
// (problem p, tile t) takes the tile's own columns and the `halo` columns
// before it:
//   F(i, j) = max(F(i-1, j) - ge, H(i-1, j) - go),
//   Ht(j)   = max(0, H(i-1, j-1) + s(q_i, t_j), F(i, j)),
//   E(i, j) = max over k < j of Ht(k) - go - (j-1-k) ge   (a max-scan along the row),
//   H(i, j) = max(Ht(j), E(i, j)),
// and the column maxima C[j] = max(C[j], H(i-1, j-1) + s). The scan uses Ht
// instead of H: a gap that follows a gap is no better than one longer gap
// (go >= ge). It reaches back `halo` columns only (a multiple of 4): a gap
// longer than that costs more than the query can score.
//
// Mixed word length: a row of a problem runs in 8-bit cells, four to a
// 32-bit word (SIMD byte instructions, saturating at 0 -- every value only
// counts as max(0, .), so clamping E, F and the diagonal term at 0 changes
// no H), while every value of the row fits a byte: H(i, .) <= max H(i-1, .)
// + max_score, so row i is 8-bit when that bound plus the score bias `bias`
// (-min_score, added so that scores are bytes) is at most 255 -- `grow` =
// max_score + bias. After a 32-bit row, the problem returns to 8-bit cells
// only with T rows of margin (max H(i-1, .) + T grow <= 255). The row
// maximum of each problem: state[6 p + 2 + i % 3] (atomic max; three slots,
// the next one cleared by tile 0), the row's word length: state[6 p + (i & 1)],
// and the count of the problem's 8-bit rows: state[6 p + 5].
// ok8 = 0 (gap costs over 255, or grow over 255) keeps every row 32-bit.
// Row buffers of a problem at desc[4]: H, F of even rows, C, H, F of odd rows
// (n + 1 ints each), then four byte rows (H, F of even rows, H, F of odd
// rows; RB = n / 4 + 3 words each, column j at byte j + 3), all 0 at the start.
#define SC_RS_TILE 1024
#define SC_RS_THREADS 256

// Four values 0..255 (clamped) as the bytes of a word, the first lowest.
__device__ __forceinline__ unsigned int sc_pack4(const int a, const int b, const int c, const int d)
{
    const unsigned int lo = __byte_perm((unsigned int)min(max(a, 0), 255), (unsigned int)min(max(b, 0), 255), 0x0040);
    const unsigned int hi = __byte_perm((unsigned int)min(max(c, 0), 255), (unsigned int)min(max(d, 0), 255), 0x0040);
    return __byte_perm(lo, hi, 0x5410);
}

// The maximum over the block of x (every thread gets it; uses red[]).
__device__ __forceinline__ int sc_block_max(int x, int* red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x = max(x, __shfl_xor_sync(SC_FULL, x, o));
    __syncthreads();
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = x;
    __syncthreads();
    int m = red[0];
    for (int w = 1; w < SC_RS_THREADS / 32; ++w) m = max(m, red[w]);
    return m;
}

extern "C" __global__ void __launch_bounds__(SC_RS_THREADS)
sc_rowscan(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B, const long long* __restrict__ desc,
           const int nprob, const long long* __restrict__ tile_first, const int* __restrict__ M, const int K,
           const int go, const int ge, int* __restrict__ rows, const int i, const int halo,
           int* __restrict__ state, const int ok8, const int grow, const int bias, const int T)
{
    __shared__ int SM[SC_MAXK * SC_MAXK];
    __shared__ unsigned char SB[SC_MAXK * SC_MAXK];  // score + bias, as bytes
    __shared__ int wmax[SC_RS_THREADS / 32];
    for (int x = threadIdx.x; x < K * K; x += blockDim.x) {
        SM[x] = M[x];
        SB[x] = (unsigned char)min(max(M[x] + bias, 0), 255);
    }
    __syncthreads();
    const ScRow P = sc_row(A, B, desc, nprob, tile_first, blockIdx.x, SM, K, rows, i);
    if (i > P.m) return;
    int lo = 0, hi = nprob - 1;  // the problem's index (as in sc_row)
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (tile_first[mid] <= (long long)blockIdx.x) lo = mid; else hi = mid - 1;
    }
    int* st = state + 6 * lo;
    const int n = P.n, t = P.t;
    const unsigned char* b = P.b;
    const int *row = P.row, *Hp = P.Hp, *Fp = P.Fp;
    int *Hc = P.Hc, *Fc = P.Fc, *C = P.C;
    // this row's word length, from the previous row's maximum and length
    const bool prev8 = i == 1 || st[(i - 1) & 1] != 0;
    const int rm = i == 1 ? 0 : st[2 + (i - 1) % 3];
    const bool m8 = ok8 != 0 && (prev8 ? rm + grow <= 255 : rm + T * grow <= 255);
    if (t == 0 && threadIdx.x == 0) {
        st[i & 1] = m8 ? 1 : 0;
        st[2 + (i + 1) % 3] = 0;
        st[5] += m8 ? 1 : 0;
    }
    const int own0 = t * SC_RS_TILE + 1, own1 = min(n, (t + 1) * SC_RS_TILE);  // own columns (1-based)
    const int J0 = max(1, own0 - halo);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int best = 0;  // the row maximum over this thread's own columns
    if (m8) {
        const int RB = (n >> 2) + 3;
        unsigned int* b8 = reinterpret_cast<unsigned int*>(rows + (desc + (long long)lo * SC_FIELDS)[4] + 5 * (n + 1));
        const unsigned int* H8p = b8 + ((i - 1) & 1) * 2 * RB;
        const unsigned int* F8p = H8p + RB;
        unsigned int* H8c = b8 + (i & 1) * 2 * RB;
        unsigned int* F8c = H8c + RB;
        const unsigned char* sb = SB + (i <= P.m ? (int)(P.row - SM) : 0);  // this row's score bytes
        const unsigned int GO4 = (unsigned int)go * 0x01010101u, GE4 = (unsigned int)ge * 0x01010101u;
        const unsigned int B4 = (unsigned int)bias * 0x01010101u;
        int carry = 0;  // G at the chunk's first column: max over k before it of Ht(k) - (c0 - 1 - k) ge
        for (int c0 = J0; c0 <= own1; c0 += 4 * SC_RS_THREADS) {
            const int j = c0 + 4 * threadIdx.x;  // this thread's columns j .. j + 3 (j = 1 mod 4)
            const int w = (j + 3) >> 2;          // their word
            unsigned int up = 0, left = 0, fw = 0;
            const bool live = j <= own1;
            if (live) {
                if (prev8) {
                    up = __ldcg(H8p + w);
                    left = __ldcg(H8p + w - 1);
                    fw = __ldcg(F8p + w);
                } else {
                    up = sc_pack4(__ldcg(Hp + j), __ldcg(Hp + j + 1), __ldcg(Hp + j + 2), __ldcg(Hp + j + 3));
                    left = (unsigned int)min(max(__ldcg(Hp + j - 1), 0), 255) << 24;
                    fw = sc_pack4(__ldcg(Fp + j), __ldcg(Fp + j + 1), __ldcg(Fp + j + 2), __ldcg(Fp + j + 3));
                }
            }
            const unsigned int dg = __byte_perm(left, up, 0x6543);  // H(i-1, j-1 .. j+2)
            const unsigned int f = __vmaxu4(__vsubus4(fw, GE4), __vsubus4(up, GO4));
            const unsigned int sw = (unsigned int)sb[b[min(j, n) - 1]] | ((unsigned int)sb[b[min(j + 1, n) - 1]] << 8) |
                                    ((unsigned int)sb[b[min(j + 2, n) - 1]] << 16) |
                                    ((unsigned int)sb[b[min(j + 3, n) - 1]] << 24);
            const unsigned int dd = __vsubus4(__vaddus4(dg, sw), B4);  // max(0, H(i-1, j-1) + s)
            const unsigned int ht = __vmaxu4(dd, f);
            int h[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) h[k] = (int)((ht >> (8 * k)) & 0xffu);
            // G just after this thread's columns, then the max-scan over threads
            int x = live ? max(max(h[3], h[2] - ge), max(h[1] - 2 * ge, h[0] - 3 * ge)) : -(1 << 20);
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const int y = __shfl_up_sync(SC_FULL, x, o);
                if (lane >= o) x = max(x, y - 4 * o * ge);
            }
            if (lane == 31) wmax[warp] = x;
            __syncthreads();
            int g = carry - (j - c0) * ge;  // G at column j from the chunks before
            for (int v = 0; v < warp; ++v) g = max(g, wmax[v] - (j - (c0 + 128 * (v + 1))) * ge);
            const int ex = __shfl_up_sync(SC_FULL, x, 1);
            if (lane > 0) g = max(g, ex);
            int next = carry - 4 * SC_RS_THREADS * ge;
            for (int v = 0; v < SC_RS_THREADS / 32; ++v)
                next = max(next, wmax[v] - (4 * SC_RS_THREADS - 128 * (v + 1)) * ge);
            __syncthreads();
            carry = max(next, 0);
            if (live && j + 3 >= own0) {
                int e[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    e[k] = g - go;  // E(i, j + k)
                    g = max(g - ge, h[k]);
                }
                const unsigned int hw = __vmaxu4(ht, sc_pack4(e[0], e[1], e[2], e[3]));
                H8c[w] = hw;
                F8c[w] = f;
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    if (j + k <= own1) {
                        best = max(best, (int)((hw >> (8 * k)) & 0xffu));
                        C[j + k] = max(C[j + k], (int)((dd >> (8 * k)) & 0xffu));
                    }
                }
            }
        }
    } else {
        int carry = SC_NEG;  // max of Ht(k) + (k - J0) ge over the columns before this chunk
        for (int c0 = J0; c0 <= own1; c0 += SC_RS_THREADS) {
            const int j = c0 + threadIdx.x;
            int key = SC_NEG, ht = 0, f = 0;
            if (j <= own1) {
                int up, fp, dgp;
                if (prev8) {  // the previous row in bytes (F clamped at 0: the same H)
                    const unsigned char* h8 = reinterpret_cast<const unsigned char*>(
                        rows + (desc + (long long)lo * SC_FIELDS)[4] + 5 * (n + 1)) + ((i - 1) & 1) * 8 * ((n >> 2) + 3);
                    up = __ldcg(h8 + j + 3);
                    dgp = __ldcg(h8 + j + 2);
                    fp = i > 1 ? (int)__ldcg(h8 + 4 * ((n >> 2) + 3) + j + 3) : SC_NEG;
                } else {
                    up = __ldcg(Hp + j);
                    dgp = __ldcg(Hp + j - 1);
                    fp = i > 1 ? __ldcg(Fp + j) : SC_NEG;  // row 0: no F
                }
                f = max(fp - ge, up - go);
                const int dd = dgp + row[b[j - 1]];
                ht = __vimax3_s32_relu(dd, f, SC_NEG);
                key = ht + (j - J0) * ge;
                if (j >= own0) C[j] = max(C[j], dd);
            }
            const int x = sc_warp_scan(key, wmax);  // inclusive max-scan of key over the warp
            int before = carry;  // the max over every column before this thread's warp
            for (int w = 0; w < warp; ++w) before = max(before, wmax[w]);
            const int incl = max(before, x);
            int excl = __shfl_up_sync(SC_FULL, incl, 1);
            if (lane == 0) excl = before;
            int total = carry;
            for (int w = 0; w < SC_RS_THREADS / 32; ++w) total = max(total, wmax[w]);
            __syncthreads();
            carry = total;
            if (j >= own0 && j <= own1) {
                // E(i, j) = max over k < j of Ht(k) - go - (j - 1 - k) ge
                const int e = excl - go - (j - 1 - J0) * ge;
                Hc[j] = max(ht, e);
                Fc[j] = f;
                best = max(best, Hc[j]);
            }
        }
    }
    const int top = sc_block_max(best, wmax);
    if (threadIdx.x == 0 && top > 0) atomicMax(st + 2 + i % 3, top);
}

// sc_rowchain -- the same row-parallel scan for long queries, whose gaps can
// reach back further than a tile: no halo; the max-scan runs across the
// tiles of a problem in one pass with a decoupled look-back (as single-pass
// prefix scans do). A block takes the next tile in launch order from
// *ticket (so every tile it waits on is running), computes Ht of its 1024
// columns in registers, publishes the tile's aggregate, finds the prefix of
// the tiles before it, publishes the inclusive prefix, then writes H, F and
// the column maxima. A tile's value is the best Ht(k) - (b - 1 - k) ge over
// its columns k, for b the column after it (what a gap opened from there
// would carry to b, before its opening cost), floored at SC_NEG. Status
// words: row << 34 | kind << 32 | value (kind 1 aggregate, 2 inclusive
// prefix); a word of an older row is not ready. *ticket is 0 at row 1, and
// every launch has exactly tile_first[nprob] blocks.
#define SC_RC_PER (SC_RS_TILE / SC_RS_THREADS)

extern "C" __global__ void __launch_bounds__(SC_RS_THREADS)
sc_rowchain(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B, const long long* __restrict__ desc,
            const int nprob, const long long* __restrict__ tile_first, const int* __restrict__ M, const int K,
            const int go, const int ge, int* __restrict__ rows, const int i,
            unsigned long long* __restrict__ ticket, unsigned long long* __restrict__ status)
{
    __shared__ int SM[SC_MAXK * SC_MAXK];
    __shared__ int wmax[SC_RS_THREADS / 32];
    __shared__ long long s_g;
    __shared__ int s_carry;
    const long long ntiles = tile_first[nprob];
    if (threadIdx.x == 0) s_g = (long long)atomicAdd(ticket, 1ull) - (long long)(i - 1) * ntiles;
    for (int x = threadIdx.x; x < K * K; x += blockDim.x) SM[x] = M[x];
    __syncthreads();
    const long long g = s_g;
    const ScRow P = sc_row(A, B, desc, nprob, tile_first, g, SM, K, rows, i);
    if (i > P.m) return;  // every tile of this problem returns: none waits on another
    const int n = P.n, t = P.t;
    const unsigned char* b = P.b;
    const int *row = P.row, *Hp = P.Hp, *Fp = P.Fp;
    int *Hc = P.Hc, *Fc = P.Fc, *C = P.C;
    const int s0 = t * SC_RS_TILE + 1, s1 = min(n, (t + 1) * SC_RS_TILE);  // the tile's columns (1-based)
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // each thread holds SC_RC_PER consecutive columns: j = s0 + threadIdx.x * SC_RC_PER + c
    int ht[SC_RC_PER], f[SC_RC_PER];
    int key = SC_NEG;  // best Ht(k) + (k - s0) ge over this thread's columns
    const int j0 = s0 + threadIdx.x * SC_RC_PER;
#pragma unroll
    for (int c = 0; c < SC_RC_PER; ++c) {
        const int j = j0 + c;
        ht[c] = 0;
        f[c] = SC_NEG;
        if (j <= s1) {
            const int up = __ldcg(Hp + j);
            f[c] = max((i > 1 ? __ldcg(Fp + j) : SC_NEG) - ge, up - go);
            const int dd = __ldcg(Hp + j - 1) + row[b[j - 1]];
            ht[c] = __vimax3_s32_relu(dd, f[c], SC_NEG);
            key = max(key, ht[c] + (j - s0) * ge);
            C[j] = max(C[j], dd);
        }
    }
    const int x = sc_warp_scan(key, wmax);  // inclusive max-scan of the threads' keys over the warp
    if (threadIdx.x == 0) {
        int total = SC_NEG;
        for (int w = 0; w < SC_RS_THREADS / 32; ++w) total = max(total, wmax[w]);
        const int width = s1 - s0 + 1;
        const int agg = max(total - (width - 1) * ge, SC_NEG);  // at b = s1 + 1
        const unsigned long long tag = (unsigned long long)i << 34;
        volatile unsigned long long* st = status + g;
        long long carry = SC_NEG;  // at b = s0
        if (t == 0) {
            *st = tag | (2ull << 32) | (unsigned int)agg;
        } else {
            *st = tag | (1ull << 32) | (unsigned int)agg;
            long long back = 0;  // columns between the tile looked at and s0
            for (long long p = g - 1;; --p) {
                unsigned long long w;
                volatile unsigned long long* sp = status + p;
                do { w = *sp; } while ((w >> 34) != (unsigned long long)i);
                const long long v = (long long)(int)(unsigned int)w - back * ge;
                carry = max(carry, v);
                if (((w >> 32) & 3ull) == 2ull) break;
                back += SC_RS_TILE;
            }
            carry = max(carry, (long long)SC_NEG);
            const int incl = (int)max(carry - (long long)width * ge, (long long)agg);
            *st = tag | (2ull << 32) | (unsigned int)max(incl, SC_NEG);
        }
        s_carry = (int)carry;
    }
    __syncthreads();
    // the best key before this thread's columns, from the tiles before (carry
    // at s0, in key terms: carry - ge) and this tile's threads before it
    int before = max(s_carry - ge, SC_NEG);
    for (int w = 0; w < warp; ++w) before = max(before, wmax[w]);
    int excl = __shfl_up_sync(SC_FULL, x, 1);
    excl = lane == 0 ? before : max(before, excl);
#pragma unroll
    for (int c = 0; c < SC_RC_PER; ++c) {
        const int j = j0 + c;
        if (j <= s1) {
            // E(i, j) = max over k < j of Ht(k) - go - (j - 1 - k) ge
            const int e = excl - go - (j - 1 - s0) * ge;
            Hc[j] = max(ht[c], e);
            Fc[j] = f[c];
            excl = max(excl, ht[c] + (j - s0) * ge);
        }
    }
}
