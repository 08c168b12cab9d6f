// Batched traceback of many pairs: the three passes of a pairwise alignment
// whose direction matrix fits the budget, one thread per pair, exact 32-bit
// arithmetic. Each kernel is a line-by-line port of the CPU engine's Numba
// kernel of the same name (swgpu/engines/cpu/pairwise.py) -- same recurrences,
// same order of comparisons, same tie rule -- so that both engines report the
// same optimal alignment (see swgpu.align.reference for the rule):
//
//   tb_sw_end   : best local score and the first cell (row-major) holding it;
//   tb_sw_start : anchored pass over the reversed prefixes: the latest start;
//   tb_nw_path  : the optimal global path between start and end, from a full
//                 matrix of direction bytes, walked back on the GPU.
//
// Pair k: query codes q[qoff[k] .. + qlen[k]), target codes t[toff[k] ..
// + tlen[k]). Each thread keeps its DP rows in its own stretch of a global
// scratch buffer (rows of n + 1 ints at srow[k]); the substitution matrix
// (K x K, K <= 32, row = query code) sits in shared memory.

#define TB_NEG (-(1 << 29))
#define TB_MAXK 32

__device__ __forceinline__ void tb_load_matrix(int* sm, const int* __restrict__ M, const int K)
{
    for (int x = threadIdx.x; x < K * K; x += blockDim.x) sm[x] = M[x];
    __syncthreads();
}

// out[3k] = best, out[3k + 1] = i_end, out[3k + 2] = j_end (1-based; 0 0 0 when best == 0).
extern "C" __global__ void tb_sw_end(const unsigned char* __restrict__ q, const long long* __restrict__ qoff,
                                     const int* __restrict__ qlen, const unsigned char* __restrict__ t,
                                     const long long* __restrict__ toff, const int* __restrict__ tlen,
                                     const int* __restrict__ M, const int K, const int go, const int ge,
                                     int* __restrict__ scratch, const long long* __restrict__ srow,
                                     const int npairs, int* __restrict__ out)
{
    __shared__ int sm[TB_MAXK * TB_MAXK];
    tb_load_matrix(sm, M, K);
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= npairs) return;
    const unsigned char* a = q + qoff[k];
    const unsigned char* b = t + toff[k];
    const int m = qlen[k], n = tlen[k];
    int* H = scratch + srow[k];      // H of the previous row, then of this one
    int* F = H + (n + 1);
    for (int j = 0; j <= n; ++j) { H[j] = 0; F[j] = TB_NEG; }
    int best = 0, bi = 0, bj = 0;
    for (int i = 1; i <= m; ++i) {
        const int* row = sm + (int)a[i - 1] * K;
        int diag = 0;       // H[i-1][j-1]
        int e = TB_NEG;
        int left = 0;       // H[i][j-1]
        int rowbest = 0, rowj = 0;
        for (int j = 1; j <= n; ++j) {
            const int up = H[j];
            const int f = max(F[j] - ge, up - go);
            F[j] = f;
            int h = max(max(diag + row[b[j - 1]], f), 0);
            e = max(e - ge, left - go);
            h = max(h, e);
            diag = up;
            H[j] = h;
            left = h;
            if (h > rowbest) { rowbest = h; rowj = j; }
        }
        if (rowbest > best) { best = rowbest; bi = i; bj = rowj; }
    }
    out[3 * k] = best;
    out[3 * k + 1] = bi;
    out[3 * k + 2] = bj;
}

// Anchored pass on the reversed prefixes q[0 .. iend) and t[0 .. jend) (read
// backwards): the first cell, row-major in reversed coordinates, whose
// diagonal value equals best. out[2k] = ri, out[2k + 1] = rj (0 0: none).
extern "C" __global__ void tb_sw_start(const unsigned char* __restrict__ q, const long long* __restrict__ qoff,
                                       const unsigned char* __restrict__ t, const long long* __restrict__ toff,
                                       const int* __restrict__ ends, const int* __restrict__ M, const int K,
                                       const int go, const int ge, int* __restrict__ scratch,
                                       const long long* __restrict__ srow, const int npairs,
                                       int* __restrict__ out)
{
    __shared__ int sm[TB_MAXK * TB_MAXK];
    tb_load_matrix(sm, M, K);
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= npairs) return;
    const int target = ends[3 * k], m = ends[3 * k + 1], n = ends[3 * k + 2];
    const unsigned char* ra = q + qoff[k] + m - 1;  // ra[-i] = rq[i]
    const unsigned char* rb = t + toff[k] + n - 1;
    int* H = scratch + srow[k];
    int* F = H + (n + 1);
    for (int j = 0; j <= n; ++j) { H[j] = TB_NEG; F[j] = TB_NEG; }
    H[0] = 0;  // the anchor: only the first pair may start from here
    int ri = 0, rj = 0;
    for (int i = 1; i <= m && ri == 0; ++i) {
        const int* row = sm + (int)ra[-(i - 1)] * K;
        int diag = H[0];
        H[0] = TB_NEG;
        int e = TB_NEG;
        int left = TB_NEG;
        for (int j = 1; j <= n; ++j) {
            const int up = H[j];
            const int f = max(F[j] - ge, up - go);
            F[j] = f;
            const int d = diag + row[rb[-(j - 1)]];
            if (d == target && ri == 0) { ri = i; rj = j; }
            e = max(e - ge, left - go);
            const int h = max(max(d, f), e);
            diag = up;
            H[j] = h;
            left = h;
        }
    }
    out[2 * k] = ri;
    out[2 * k + 1] = rj;
}

// Optimal global path of a = q[i0 .. i1) against b = t[j0 .. j1) (box[4k ..]):
// direction bytes (bits 0-1: H source 0 diag, 1 E, 2 F; bit 2: E extends;
// bit 3: F extends) at dirs[doff[k] + (i - 1) * n + (j - 1)], then the walk
// back from the end. ops[ooff[k] ..] get the op codes in reverse (0 pair,
// 1 a residue against a gap, 2 b residue against a gap); res[2k] = their
// number, res[2k + 1] = the path's score. lead = tail = gap open (the path
// of a whole local alignment).
extern "C" __global__ void tb_nw_path(const unsigned char* __restrict__ q, const long long* __restrict__ qoff,
                                      const unsigned char* __restrict__ t, const long long* __restrict__ toff,
                                      const int* __restrict__ box, const int* __restrict__ M, const int K,
                                      const int go, const int ge, int* __restrict__ scratch,
                                      const long long* __restrict__ srow, unsigned char* __restrict__ dirs,
                                      const long long* __restrict__ doff, unsigned char* __restrict__ ops,
                                      const long long* __restrict__ ooff, const int npairs, int* __restrict__ res)
{
    __shared__ int sm[TB_MAXK * TB_MAXK];
    tb_load_matrix(sm, M, K);
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= npairs) return;
    const int i0 = box[4 * k], i1 = box[4 * k + 1], j0 = box[4 * k + 2], j1 = box[4 * k + 3];
    const unsigned char* a = q + qoff[k] + i0;
    const unsigned char* b = t + toff[k] + j0;
    const int m = i1 - i0, n = j1 - j0;
    unsigned char* D = dirs + doff[k];
    int* H = scratch + srow[k];
    int* F = H + (n + 1);
    H[0] = 0;
    for (int j = 1; j <= n; ++j) { H[j] = -(go + (j - 1) * ge); F[j] = TB_NEG; }
    for (int i = 1; i <= m; ++i) {
        const int* row = sm + (int)a[i - 1] * K;
        int diag = H[0];
        int h = -(go + (i - 1) * ge);
        H[0] = h;
        int e = TB_NEG;
        unsigned char* Drow = D + (long long)(i - 1) * n;
        for (int j = 1; j <= n; ++j) {
            unsigned int flags = 0;
            const int eo = h - go, ee = e - ge;
            if (ee >= eo) { e = ee; flags |= 4; } else { e = eo; }
            const int up = H[j];
            const int fo = up - go, fe = F[j] - ge;
            int f;
            if (fe >= fo) { f = fe; flags |= 8; } else { f = fo; }
            F[j] = f;
            h = diag + row[b[j - 1]];
            if (e > h) { h = e; flags = (flags & 12) | 1; }
            if (f > h) { h = f; flags = (flags & 12) | 2; }
            Drow[j - 1] = (unsigned char)flags;
            diag = up;
            H[j] = h;
        }
    }
    int fin = H[n];
    int state = 0;
    if (m > 0 && n > 0) {
        const int alt = F[n];  // + go - tail_open with tail_open == go
        if (alt > fin) { fin = alt; state = 2; }
    }
    unsigned char* out = ops + ooff[k];
    int c = 0, i = m, j = n;
    while (i > 0 || j > 0) {
        if (i == 0) { out[c++] = 2; --j; }
        else if (j == 0) { out[c++] = 1; --i; }
        else {
            const unsigned int d = D[(long long)(i - 1) * n + (j - 1)];
            if (state == 0) {
                const unsigned int src = d & 3u;
                if (src == 0) { out[c++] = 0; --i; --j; }
                else state = (int)src;
            } else if (state == 1) {
                out[c++] = 2;
                if (!(d & 4u)) state = 0;
                --j;
            } else {
                out[c++] = 1;
                if (!(d & 8u)) state = 0;
                --i;
            }
        }
    }
    res[2 * k] = c;
    res[2 * k + 1] = fin;
}
