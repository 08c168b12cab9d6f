// Lane types shared by the DPX kernels: P2 holds two 16-bit scores in one
// register (s16x2), W2 two 32-bit scores; the same operations on both, so a
// kernel template picks its lane width with one parameter.
#pragma once

namespace lanes {

struct P2 { unsigned int v; };
struct W2 { int a, b; };

template <bool WIDE> struct LaneT { typedef P2 T; };
template <> struct LaneT<true> { typedef W2 T; };

#define LANES_FULL 0xffffffffu

__device__ __forceinline__ void splat(P2& r, int x) { const unsigned int h = (unsigned int)x & 0xffffu; r.v = h | (h << 16); }
__device__ __forceinline__ void splat(W2& r, int x) { r.a = x; r.b = x; }

// max(a + b, c)
__device__ __forceinline__ P2 add_max(P2 a, P2 b, P2 c) { P2 r; r.v = __viaddmax_s16x2(a.v, b.v, c.v); return r; }
__device__ __forceinline__ W2 add_max(W2 a, W2 b, W2 c) { W2 r; r.a = __viaddmax_s32(a.a, b.a, c.a); r.b = __viaddmax_s32(a.b, b.b, c.b); return r; }
// max(a + b, c, 0)
__device__ __forceinline__ P2 add_max_relu(P2 a, P2 b, P2 c) { P2 r; r.v = __viaddmax_s16x2_relu(a.v, b.v, c.v); return r; }
__device__ __forceinline__ W2 add_max_relu(W2 a, W2 b, W2 c) { W2 r; r.a = __viaddmax_s32_relu(a.a, b.a, c.a); r.b = __viaddmax_s32_relu(a.b, b.b, c.b); return r; }
// max(a, b, 0)
__device__ __forceinline__ P2 max_relu(P2 a, P2 b) { P2 r; r.v = __vimax_s16x2_relu(a.v, b.v); return r; }
__device__ __forceinline__ W2 max_relu(W2 a, W2 b) { W2 r; r.a = __vimax_s32_relu(a.a, b.a); r.b = __vimax_s32_relu(a.b, b.b); return r; }
// max(a, b, c)
__device__ __forceinline__ P2 max3(P2 a, P2 b, P2 c) { P2 r; r.v = __vimax3_s16x2(a.v, b.v, c.v); return r; }
__device__ __forceinline__ W2 max3(W2 a, W2 b, W2 c) { W2 r; r.a = __vimax3_s32(a.a, b.a, c.a); r.b = __vimax3_s32(a.b, b.b, c.b); return r; }
// max(a, b, c, 0)
__device__ __forceinline__ P2 max3_relu(P2 a, P2 b, P2 c) { P2 r; r.v = __vimax3_s16x2_relu(a.v, b.v, c.v); return r; }
__device__ __forceinline__ W2 max3_relu(W2 a, W2 b, W2 c) { W2 r; r.a = __vimax3_s32_relu(a.a, b.a, c.a); r.b = __vimax3_s32_relu(a.b, b.b, c.b); return r; }

// a - b lane by lane. P2: one 32-bit subtraction, exact in both halves when
// the low half of a is at least the low half of b (no borrow crosses over);
// it then runs on the FMA pipe (IMAD) instead of the DPX (ALU) pipe.
__device__ __forceinline__ P2 sub_nb(P2 a, P2 b) { P2 r; r.v = a.v - b.v; return r; }
__device__ __forceinline__ W2 sub_nb(W2 a, W2 b) { W2 r; r.a = a.a - b.a; r.b = a.b - b.b; return r; }
// the halves of a selected by m (0xffff: low, 0xffff0000: high), those of c elsewhere
__device__ __forceinline__ P2 blend(P2 a, unsigned int m, P2 c) { a.v = (a.v & m) | (c.v & ~m); return a; }
__device__ __forceinline__ W2 blend(W2 a, unsigned int m, W2 c) { a.a = (m & 0xffffu) ? a.a : c.a; a.b = (m & 0xffff0000u) ? a.b : c.b; return a; }

// keep the halves selected by m (0xffff: low, 0xffff0000: high), zero the others
__device__ __forceinline__ P2 mask(P2 x, unsigned int m) { x.v &= m; return x; }
__device__ __forceinline__ W2 mask(W2 x, unsigned int m) { x.a = (m & 0xffffu) ? x.a : 0; x.b = (m & 0xffff0000u) ? x.b : 0; return x; }

__device__ __forceinline__ P2 shfl_up(P2 x, int w) { x.v = __shfl_up_sync(LANES_FULL, x.v, 1, w); return x; }
__device__ __forceinline__ W2 shfl_up(W2 x, int w) { x.a = __shfl_up_sync(LANES_FULL, x.a, 1, w); x.b = __shfl_up_sync(LANES_FULL, x.b, 1, w); return x; }
__device__ __forceinline__ P2 shfl_xor(P2 x, int o, int w) { x.v = __shfl_xor_sync(LANES_FULL, x.v, o, w); return x; }
__device__ __forceinline__ W2 shfl_xor(W2 x, int o, int w) { x.a = __shfl_xor_sync(LANES_FULL, x.a, o, w); x.b = __shfl_xor_sync(LANES_FULL, x.b, o, w); return x; }

__device__ __forceinline__ void scores_of(P2 m, int& a, int& b) { a = (int)(short)(m.v & 0xffffu); b = ((int)m.v) >> 16; }
__device__ __forceinline__ void scores_of(W2 m, int& a, int& b) { a = m.a; b = m.b; }

}  // namespace lanes
