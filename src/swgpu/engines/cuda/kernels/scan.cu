// Scan: candidate hit end points of short queries along long targets.
//
// sc_colmax -- for each problem (a query against a window of a record), the
// best score of an alignment ending with a pair at each window column:
// colmax[j] = max(0, max_i H(i - 1, j - 1) + s(q_i, t_j)) of the local matrix
// of the query against the window (a pass that starts fresh at the window's
// first column; the host puts span - 1 letters before the columns it needs).
// One warp per problem, a wavefront over strips of 32 rows (lane l holds row
// strip * 32 + l + 1 and runs one column behind lane l - 1; H, F and the
// column maximum so far pass down by shuffles; the strip's last row goes to a
// row buffer -- H, F and the column maximum -- for the next strip). The row
// buffer is read 32 columns at a time, one column per lane, a chunk ahead,
// and handed to lane 0 by a shuffle. Exact 32-bit arithmetic, DPX max
// instructions.
//
// sc_points -- the end-point rule of swgpu.align.scan_rule on those column
// maxima: column j of the problem's own range is a candidate when colmax[j]
// >= the problem's threshold, > every colmax in the r columns before it and
// >= every one in the r columns after it (the window holds every neighbour
// inside the record; outside it there are none). Candidates of one problem
// are more than r columns apart. One thread per column.
//
// Problem p: desc[p * SC_FIELDS + ...]
//   0 first query letter in A   1 m (rows)   2 first window letter in B
//   3 n (window columns)        4 row buffer offset (ints: H, F, C; n + 1 each)
//   5 own columns: first (window coordinates, 0-based)   6 own columns: end
//   7 r (neighbourhood)         8 threshold              9 genome column of the window's first letter
//   10 output slot (query index)

#define SC_NEG (-(1 << 29))
#define SC_FIELDS 11
#define SC_WARPS 8
#define SC_FULL 0xffffffffu
#define SC_MAXK 32

extern "C" __global__ void __launch_bounds__(32 * SC_WARPS)
sc_colmax(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
          const long long* __restrict__ desc, const int nprob, const int* __restrict__ M, const int K,
          const int go, const int ge, int* __restrict__ rows)
{
    __shared__ int SM[SC_MAXK * SC_MAXK];
    for (int x = threadIdx.x; x < K * K; x += blockDim.x) SM[x] = M[x];
    __syncthreads();
    const int p = blockIdx.x * SC_WARPS + (threadIdx.x >> 5);
    if (p >= nprob) return;
    const int lane = threadIdx.x & 31;
    const long long* d = desc + (long long)p * SC_FIELDS;
    const int m = (int)d[1], n = (int)d[3];
    const unsigned char* a = A + d[0];
    const unsigned char* b = B + d[2];
    int* Hrow = rows + d[4];
    int* Frow = Hrow + (n + 1);
    int* Crow = Frow + (n + 1);
    for (int j = lane; j <= n; j += 32) { Hrow[j] = 0; Frow[j] = SC_NEG; Crow[j] = 0; }
    __syncwarp();
    for (int strip = 0; strip * 32 < m; ++strip) {
        const int i = strip * 32 + lane + 1;
        const bool live = i <= m;
        const int last = min(31, m - 1 - strip * 32);  // the lane that writes the row buffer
        const int* srow = SM + (live ? (int)a[i - 1] : 0) * K;
        int h = 0, e = SC_NEG, f = SC_NEG, cm = 0, bc = 0;
        int diag = 0;  // H(i - 1, 0) = 0 in a local matrix
        // chunk c of the row buffer: column 32 c + lane + 1 in this lane's registers
        int ch = 0, cf = SC_NEG, cc = 0, cb = 0, nh = 0, nf = SC_NEG, nc = 0, nb = 0;
        {
            const int j = lane + 1;
            if (j <= n) { ch = Hrow[j]; cf = Frow[j]; cc = Crow[j]; cb = b[j - 1]; }
            const int j2 = j + 32;
            if (j2 <= n) { nh = Hrow[j2]; nf = Frow[j2]; nc = Crow[j2]; nb = b[j2 - 1]; }
        }
        const int steps = n + last;
        for (int s = 0; s < steps; ++s) {
            const int slot = s & 31;
            if (slot == 0 && s > 0) {
                ch = nh; cf = nf; cc = nc; cb = nb;
                const int j2 = (((s >> 5) + 1) << 5) + lane + 1;
                if (j2 <= n) { nh = Hrow[j2]; nf = Frow[j2]; nc = Crow[j2]; nb = b[j2 - 1]; }
            }
            int up = __shfl_up_sync(SC_FULL, h, 1);
            int upf = __shfl_up_sync(SC_FULL, f, 1);
            int upc = __shfl_up_sync(SC_FULL, cm, 1);
            int ub = __shfl_up_sync(SC_FULL, bc, 1);
            const int bh = __shfl_sync(SC_FULL, ch, slot);
            const int bf = __shfl_sync(SC_FULL, cf, slot);
            const int bcm = __shfl_sync(SC_FULL, cc, slot);
            const int bb = __shfl_sync(SC_FULL, cb, slot);
            const int j = s - lane + 1;
            if (lane == 0) { up = bh; upf = bf; upc = bcm; ub = bb; }
            if (live && j >= 1 && j <= n) {
                bc = ub;
                f = __viaddmax_s32(upf, -ge, up - go);
                e = __viaddmax_s32(e, -ge, h - go);
                const int dd = diag + srow[ub];
                h = __vimax3_s32_relu(dd, f, e);
                cm = max(upc, dd);
                if (lane == last) { Hrow[j] = h; Frow[j] = f; Crow[j] = cm; }
            }
            diag = up;
        }
        __syncwarp();
    }
}

// Candidates of every problem, appended to (cols, scores, slots) at an atomic
// counter; cap: the room there (the host sizes it by the spacing above).
extern "C" __global__ void sc_points(const int* __restrict__ rows, const long long* __restrict__ desc,
                                     const long long* __restrict__ first_col, const long long total_cols,
                                     const int nprob, long long* __restrict__ cols, int* __restrict__ scores,
                                     int* __restrict__ slots, unsigned long long* __restrict__ count,
                                     const unsigned long long cap)
{
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < total_cols;
         x += (long long)gridDim.x * blockDim.x) {
        // the problem of column x: first_col is the prefix sum of own-range lengths
        int lo = 0, hi = nprob - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (first_col[mid] <= x) lo = mid; else hi = mid - 1;
        }
        const long long* d = desc + (long long)lo * SC_FIELDS;
        const int n = (int)d[3];
        const int j = (int)(d[5] + (x - first_col[lo]));  // window column, 0-based
        const int* C = rows + d[4] + 2 * (n + 1) + 1;    // colmax of window columns 0 .. n - 1
        const int v = C[j];
        const int r = (int)d[7];
        if (v < (int)d[8]) continue;
        bool ok = true;
        for (int k = max(0, j - r); k < j && ok; ++k) ok = C[k] < v;
        for (int k = j + 1; k <= min(n - 1, j + r) && ok; ++k) ok = C[k] <= v;
        if (!ok) continue;
        const unsigned long long at = atomicAdd(count, 1ull);
        if (at < cap) {
            cols[at] = d[9] + j;
            scores[at] = v;
            slots[at] = (int)d[10];
        }
    }
}
