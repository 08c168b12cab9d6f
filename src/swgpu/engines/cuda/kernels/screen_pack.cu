// Packing of screening pairs on the GPU: the codes of all pairs are uploaded
// once, end to end (two arrays: queries and targets); for each launch batch
// these kernels write the rows the screening kernels read -- one row per pair
// (the shorter side of the pair as its "row" sequence, the longer as its
// "column" sequence), padded with the N code to the batch width, one code per
// byte or two per byte (low nibble first). Rows past the batch are all N.
//
// pair p of row r: idx[r]; its row sequence is the query unless swap[p], its
// column sequence the other one.

__device__ __forceinline__ unsigned int pk_code(const unsigned char* __restrict__ qc,
                                                const long long* __restrict__ qoff,
                                                const unsigned char* __restrict__ tc,
                                                const long long* __restrict__ toff,
                                                const unsigned char* __restrict__ swap, const long long p,
                                                const int col_side, const long long pos, const unsigned int ncode)
{
    const bool from_t = (swap[p] != 0) != (col_side != 0);
    const long long a = from_t ? toff[p] : qoff[p];
    const long long len = (from_t ? toff[p + 1] : qoff[p + 1]) - a;
    if (pos >= len) return ncode;
    const unsigned int c = from_t ? tc[a + pos] : qc[a + pos];
    return c > ncode ? ncode : c;  // a bad code reads as N until the host raises
}

// out: rows x (width >> nibble) bytes. col_side 0: the row sequences, 1: the columns.
extern "C" __global__ void pk_rows(const unsigned char* __restrict__ qc, const long long* __restrict__ qoff,
                                   const unsigned char* __restrict__ tc, const long long* __restrict__ toff,
                                   const unsigned char* __restrict__ swap, const long long* __restrict__ idx,
                                   const int nidx, const int rows, const int width, const int nibble,
                                   const int col_side, const unsigned int ncode, unsigned char* __restrict__ out)
{
    const int outw = width >> nibble;
    const long long total = (long long)rows * outw;
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < total;
         x += (long long)gridDim.x * blockDim.x) {
        const int r = (int)(x / outw);
        const long long b = x - (long long)r * outw;
        unsigned int v;
        if (r >= nidx) {
            v = nibble ? (ncode | (ncode << 4)) : ncode;
        } else {
            const long long p = idx[r];
            if (nibble) {
                v = pk_code(qc, qoff, tc, toff, swap, p, col_side, 2 * b, ncode)
                    | (pk_code(qc, qoff, tc, toff, swap, p, col_side, 2 * b + 1, ncode) << 4);
            } else {
                v = pk_code(qc, qoff, tc, toff, swap, p, col_side, b, ncode);
            }
        }
        out[x] = (unsigned char)v;
    }
}

// flag[0] |= 1 when any of the n codes is above max_code (the input check of
// codes that were not checked on the host). 16 bytes a thread per step.
extern "C" __global__ void pk_check(const unsigned char* __restrict__ codes, const long long n,
                                    const unsigned int max_code, unsigned int* __restrict__ flag)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long nvec = n >> 4;
    const uint4* v = reinterpret_cast<const uint4*>(codes);
    unsigned int bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nvec; i += stride) {
        const uint4 x = v[i];
        const unsigned int w[4] = {x.x, x.y, x.z, x.w};
        for (int k = 0; k < 4; ++k)
            bad |= __vcmpgtu4(w[k], max_code * 0x01010101u);
    }
    for (long long i = (nvec << 4) + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride)
        bad |= codes[i] > max_code;
    if (__any_sync(0xffffffffu, bad != 0) && (threadIdx.x & 31) == 0) atomicOr(flag, 1u);
}
