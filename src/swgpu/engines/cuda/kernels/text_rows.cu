// Text lines of many records at once: the writers' rows (swgpu/io/writers/rows.py)
// and CIGAR strings (swgpu/io/writers/columns.py), byte for byte what the
// compiled host kernels of swgpu/io/kernels.py write. One thread a line: a
// pass gives each line's size, the host adds them up, a second pass writes
// every line at its place.
//
// A line's fields, in order: kind 0 an integer (decimal, a minus sign when
// negative) ints[arg][k]; kind 1 the bytes [starts[arg][k], ends[arg][k]) of
// pool pool_of[arg] (the pools end to end in `pools`, pool p from
// pool_at[p]); kind 2 the constant bytes [coff[arg], coff[arg + 1]) of `consts`.

__device__ __forceinline__ int tr_digits(long long v)
{
    int n = 1;
    while (v >= 10) { v /= 10; ++n; }
    return n;
}

__device__ __forceinline__ int tr_digits_signed(long long v)
{
    return v < 0 ? 1 + tr_digits(-v) : tr_digits(v);
}

// The digits of v (>= 0), ending just before out[end].
__device__ __forceinline__ void tr_put_digits(unsigned char* out, long long end, long long v)
{
    do {
        out[--end] = (unsigned char)('0' + v % 10);
        v /= 10;
    } while (v);
}

extern "C" __global__ void __launch_bounds__(256)
tr_row_sizes(const long long* __restrict__ kinds, const long long* __restrict__ args, const int nfields,
             const long long* __restrict__ ints, const long long* __restrict__ starts,
             const long long* __restrict__ ends, const long long* __restrict__ coff, const long long n,
             long long* __restrict__ sizes)
{
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    long long size = 0;
    for (int f = 0; f < nfields; ++f) {
        const long long g = args[f];
        if (kinds[f] == 0) size += tr_digits_signed(ints[g * n + k]);
        else if (kinds[f] == 1) size += ends[g * n + k] - starts[g * n + k];
        else size += coff[g + 1] - coff[g];
    }
    sizes[k] = size;
}

extern "C" __global__ void __launch_bounds__(256)
tr_row_fill(const long long* __restrict__ kinds, const long long* __restrict__ args, const int nfields,
            const long long* __restrict__ ints, const long long* __restrict__ starts,
            const long long* __restrict__ ends, const long long* __restrict__ coff, const long long n,
            const long long* __restrict__ pool_of, const long long* __restrict__ pool_at,
            const unsigned char* __restrict__ pools, const unsigned char* __restrict__ consts,
            const long long* __restrict__ at, unsigned char* __restrict__ out)
{
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    long long p = at[k];
    for (int f = 0; f < nfields; ++f) {
        const long long g = args[f];
        if (kinds[f] == 0) {
            long long v = ints[g * n + k];
            const int w = tr_digits_signed(v);
            if (v < 0) { out[p] = '-'; v = -v; }
            tr_put_digits(out, p + w, v);
            p += w;
        } else if (kinds[f] == 1) {
            const unsigned char* src = pools + pool_at[pool_of[g]];
            for (long long c = starts[g * n + k]; c < ends[g * n + k]; ++c) out[p++] = src[c];
        } else {
            for (long long c = coff[g]; c < coff[g + 1]; ++c) out[p++] = consts[c];
        }
    }
}

// CIGAR k: left[k] clips (letter `clip`), the runs [first[k], last[k]) of
// run_len / run_op, right[k] clips; a clip of 0 left out.
extern "C" __global__ void __launch_bounds__(256)
tr_cigar_sizes(const long long* __restrict__ run_len, const long long* __restrict__ first,
               const long long* __restrict__ last, const long long* __restrict__ left,
               const long long* __restrict__ right, const long long n, long long* __restrict__ sizes)
{
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    long long s = 0;
    for (long long r = first[k]; r < last[k]; ++r) s += tr_digits(run_len[r]) + 1;
    if (left[k] > 0) s += tr_digits(left[k]) + 1;
    if (right[k] > 0) s += tr_digits(right[k]) + 1;
    sizes[k] = s;
}

__device__ __forceinline__ long long tr_put(unsigned char* out, long long p, long long v, unsigned char letter)
{
    const int w = tr_digits(v);
    tr_put_digits(out, p + w, v);
    out[p + w] = letter;
    return p + w + 1;
}

extern "C" __global__ void __launch_bounds__(256)
tr_cigar_fill(const long long* __restrict__ run_len, const unsigned char* __restrict__ run_op,
              const long long* __restrict__ first, const long long* __restrict__ last,
              const long long* __restrict__ left, const long long* __restrict__ right, const unsigned char clip,
              const long long* __restrict__ offsets, const long long n, unsigned char* __restrict__ out)
{
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    long long p = offsets[k];
    if (left[k] > 0) p = tr_put(out, p, left[k], clip);
    for (long long r = first[k]; r < last[k]; ++r) p = tr_put(out, p, run_len[r], run_op[r]);
    if (right[k] > 0) tr_put(out, p, right[k], clip);
}
