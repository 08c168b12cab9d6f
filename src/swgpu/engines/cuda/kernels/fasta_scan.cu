// FASTA text scanned on the GPU: the common case of swgpu/io/scan_arrays.py
// (scan_part), field for field. The host (engines/cuda/fasta_scan.py) runs the
// passes in order:
//   1. the line ends: each tile of FS_TILE bytes counts its '\n', the counts
//      are added up, each tile writes the positions of its own;
//   2. a thread a line: header or not, and its letters (all its bytes, less a
//      '\r' before the line end);
//   3. the letters' and the headers' places (sums over the lines), then a warp
//      a line copies its letters and their codes (a code of 255: a letter the
//      array scan does not take, FS_RECHECK), and a header line notes where its
//      record's letters start;
//   4. a thread a header: the name and description fields, cut as the array
//      scan cuts them (a byte that is not ASCII or a control byte, no name, a
//      record without letters: FS_REJECT);
//   5. the names and descriptions copied end to end (a warp a record).
// A text with FS_REJECT or FS_RECHECK is scanned on the host instead, which
// decides as before.

#define FS_THREADS 256
#define FS_PER_THREAD 32
#define FS_TILE (FS_THREADS * FS_PER_THREAD)

#define FS_WS 1
#define FS_HEAD 2
#define FS_COMMENT 8
#define FS_CONTROL 16

#define FS_REJECT 1
#define FS_RECHECK 2

// Exclusive sum of one value a thread over a block of FS_THREADS; the block's total in *total.
__device__ __forceinline__ long long fs_block_scan(long long v, long long* total)
{
    __shared__ long long sums[FS_THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long x = v;
    for (int o = 1; o < 32; o <<= 1) {
        const long long y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        long long s = lane < FS_THREADS / 32 ? sums[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            const long long y = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += y;
        }
        if (lane < FS_THREADS / 32) sums[lane] = s;
    }
    __syncthreads();
    const long long before = (warp ? sums[warp - 1] : 0) + x - v;
    *total = sums[FS_THREADS / 32 - 1];
    __syncthreads();  // (sums is used again by the next call)
    return before;
}

// The '\n' of this thread's FS_PER_THREAD bytes.
__device__ __forceinline__ int fs_newlines(const unsigned char* __restrict__ d, const long long n, const long long a)
{
    int c = 0;
    for (int j = 0; j < FS_PER_THREAD; ++j)
        c += (a + j < n && d[a + j] == '\n');
    return c;
}

extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_count_lines(const unsigned char* __restrict__ d, const long long n, long long* __restrict__ counts)
{
    const long long a = (long long)blockIdx.x * FS_TILE + (long long)threadIdx.x * FS_PER_THREAD;
    long long total;
    fs_block_scan(fs_newlines(d, n, a), &total);
    if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_write_lines(const unsigned char* __restrict__ d, const long long n, const long long* __restrict__ before,
               long long* __restrict__ nl)
{
    const long long a = (long long)blockIdx.x * FS_TILE + (long long)threadIdx.x * FS_PER_THREAD;
    long long total;
    long long at = before[blockIdx.x] + fs_block_scan(fs_newlines(d, n, a), &total);
    for (int j = 0; j < FS_PER_THREAD; ++j)
        if (a + j < n && d[a + j] == '\n') nl[at++] = a + j;
}

// out[k] = in[0] + ... + in[k - 1] for k = 0..m (one block).
extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_scan_small(const long long* __restrict__ in, const long long m, long long* __restrict__ out)
{
    long long carry = 0;
    for (long long base = 0; base < m; base += FS_THREADS) {
        const long long k = base + threadIdx.x;
        long long total;
        const long long before = fs_block_scan(k < m ? in[k] : 0, &total);
        if (k < m) out[k] = carry + before;
        carry += total;
    }
    if (threadIdx.x == 0) out[m] = carry;
}

// The sum of each tile of FS_TILE values.
extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_sum_tiles(const long long* __restrict__ in, const long long m, long long* __restrict__ sums)
{
    const long long a = (long long)blockIdx.x * FS_TILE + (long long)threadIdx.x * FS_PER_THREAD;
    long long s = 0;
    for (int j = 0; j < FS_PER_THREAD; ++j)
        if (a + j < m) s += in[a + j];
    long long total;
    fs_block_scan(s, &total);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// out[k] = in[0] + ... + in[k - 1] for k = 0..m, each tile from the sum of the tiles before it.
extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_scan_tiles(const long long* __restrict__ in, const long long m, const long long* __restrict__ before,
              long long* __restrict__ out)
{
    const long long a = (long long)blockIdx.x * FS_TILE + (long long)threadIdx.x * FS_PER_THREAD;
    long long s = 0;
    for (int j = 0; j < FS_PER_THREAD; ++j)
        if (a + j < m) s += in[a + j];
    long long total;
    long long at = before[blockIdx.x] + fs_block_scan(s, &total);
    for (int j = 0; j < FS_PER_THREAD; ++j)
        if (a + j < m) {
            out[a + j] = at;
            at += in[a + j];
        }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) out[m] = before[gridDim.x];
}

// Line k: bytes [start, end) (its '\n' not among them).
__device__ __forceinline__ void fs_line(const long long* __restrict__ nl, const long long nnl, const long long n,
                                        const long long k, long long* start, long long* end)
{
    *start = k ? nl[k - 1] + 1 : 0;
    *end = k < nnl ? nl[k] : n;
}

extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_lines(const unsigned char* __restrict__ d, const long long n, const long long* __restrict__ nl,
         const long long nnl, const long long lines, long long* __restrict__ letters, long long* __restrict__ heads)
{
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= lines) return;
    long long s, e;
    fs_line(nl, nnl, n, k, &s, &e);
    const bool head = d[s] == '>';  // (s < n: a text that ends with '\n' has no line after it)
    heads[k] = head;
    letters[k] = head ? 0 : e - s - (e > s && d[e - 1] == '\r');
}

extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_place(const unsigned char* __restrict__ d, const long long n, const long long* __restrict__ nl,
         const long long nnl, const long long lines, const long long* __restrict__ heads,
         const long long* __restrict__ lstart, const long long* __restrict__ hrank,
         const unsigned char* __restrict__ check, unsigned char* __restrict__ letters,
         unsigned char* __restrict__ codes, long long* __restrict__ hline, long long* __restrict__ loff,
         int* __restrict__ flags)
{
    const long long k = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (k >= lines) return;  // (a whole warp: k is the warp's)
    if (k == 0 && lane == 0) loff[hrank[lines]] = lstart[lines];
    if (heads[k]) {
        if (lane == 0) {
            const long long r = hrank[k];
            hline[r] = k;
            loff[r] = lstart[k];
        }
        return;
    }
    long long s, e;
    fs_line(nl, nnl, n, k, &s, &e);
    const long long at = lstart[k], count = lstart[k + 1] - at;
    bool bad = false;
    for (long long j = lane; j < count; j += 32) {
        const unsigned char b = d[s + j], c = check[b];
        letters[at + j] = b;
        codes[at + j] = c;
        bad |= c == 255;
    }
    if (__any_sync(0xffffffffu, bad) && lane == 0) atomicOr(flags, FS_RECHECK);
}

extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_headers(const unsigned char* __restrict__ d, const long long n, const long long* __restrict__ nl,
           const long long nnl, const long long* __restrict__ hline, const long long records,
           const unsigned char* __restrict__ cls, const long long* __restrict__ loff,
           long long* __restrict__ fields, long long* __restrict__ nsize, long long* __restrict__ dsize,
           int* __restrict__ flags)
{
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= records) return;
    long long s, e;
    fs_line(nl, nnl, n, hline[r], &s, &e);
    const long long length = e - s - 1;  // bytes after the '>'
    bool bad = length <= 0 || loff[r + 1] == loff[r];  // no name; a record without letters
    long long name = length, dstart = length, dend = 0;
    for (long long rel = 0; !bad && rel < length; ++rel) {
        const unsigned char kind = cls[d[s + 1 + rel]];
        if (kind & (FS_HEAD | FS_CONTROL)) bad = true;
        else if (kind == FS_WS) {
            if (name == length) name = rel;
        } else if (name != length) {
            if (dstart == length) dstart = rel;
            dend = rel + 1;
        }
    }
    if (dstart == length) dend = length;
    bad |= name == 0;
    if (bad) {
        atomicOr(flags, FS_REJECT);
        name = dstart = dend = 0;
    }
    const long long base = s + 1;
    fields[4 * r] = base;
    fields[4 * r + 1] = base + name;
    fields[4 * r + 2] = base + dstart;
    fields[4 * r + 3] = base + dend;
    nsize[r] = name;
    dsize[r] = dend - dstart;
}

extern "C" __global__ void __launch_bounds__(FS_THREADS)
fs_gather(const unsigned char* __restrict__ d, const long long* __restrict__ fields, const long long records,
          const long long* __restrict__ noff, const long long* __restrict__ doff, unsigned char* __restrict__ names,
          unsigned char* __restrict__ descriptions)
{
    const long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (r >= records) return;
    const long long* f = fields + 4 * r;
    for (long long j = lane; j < f[1] - f[0]; j += 32) names[noff[r] + j] = d[f[0] + j];
    for (long long j = lane; j < f[3] - f[2]; j += 32) descriptions[doff[r] + j] = d[f[2] + j];
}
