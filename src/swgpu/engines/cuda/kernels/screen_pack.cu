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
    return from_t ? tc[a + pos] : qc[a + pos];
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
