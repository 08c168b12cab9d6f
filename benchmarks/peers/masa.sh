#!/usr/bin/env bash
# Build MASA-CUDAlign 4.0.2.1028 (github.com/edanssandes/MASA-CUDAlign: the
# `cudalign` program on the masa-core framework) for an H100 and run it on a
# DNA pair.
#
#   benchmarks/peers/masa.sh build SRC BUILD   # SRC: the repository root or its
#                                              # masa-cudalign-4.0.2.1028 folder
#   benchmarks/peers/masa.sh run BUILD SEQ1.fa SEQ2.fa [options of cudalign]
# "run" prints the whole-process wall time and MASA's own stage-1 figures.
# Environment: CUDA_HOME (default /usr/local/cuda), MASA_ARCH (default sm_90),
# MASA_JOBS (default: nproc), MASA_LOG (run logs, default /tmp/masa.last).
#
# Edits done by "build" on the copy (the source tree is left untouched):
#   ./configure --with-cuda=$CUDA_HOME --with-cuda-arch=sm_90
#       (nvcc --gpu-architecture=sm_90; the default is sm_75), rpath to the
#       toolkit's lib64;
#   -lcuda dropped (its one driver call, cuMemGetInfo, becomes cudaMemGetInfo);
#   texture references (removed in CUDA 12) become texture objects: each
#       texture<T,1> t becomes a __constant__ cudaTextureObject_t t over the
#       same linear memory, tex1Dfetch(t,i) becomes tex1Dfetch<T>(t,i),
#       cudaBindTexture/cudaUnbindTexture become helpers in src/masa_compat.h;
#   cudaDeviceProp.clockRate/deviceOverlap/kernelExecTimeoutEnabled (removed in
#       CUDA 13) are read with cudaDeviceGetAttribute.
#
# Command-line facts (from libs/masa-core/src/libmasa/libmasa.cpp and
# src/CUDAlignerParameters.cpp):
#   scoring   no flag: compile-time constants in src/CUDAligner.hpp:
#             DNA_MATCH 1, DNA_MISMATCH -3, DNA_GAP_OPEN 3, DNA_GAP_EXT 2, and
#             E = max(H - GAP_OPEN, E) - GAP_EXT, so a gap of length k costs
#             3 + 2k = 5 + 2(k-1): exactly open 5 / extend 2 in the
#             "open + (k-1)*extend" convention (MASA prints "SW PARAM: 1/-3/-3/-2",
#             its open excludes the first extension). "build" checks these values.
#   stage 1   -1 / --stage-1: best score and its end point only, no traceback.
#             With the default --disk-size=0/--ram-size=0 no special rows are
#             saved; -n / --no-flush makes that explicit.
#   pruning   block pruning is on by default; --no-block-pruning turns it off
#             (long form only: -p is not among the short options)
#             (--fork, --flush-column and --load-column also turn it off).
#   GPU       --gpu=N (CUDA device id; default: the fastest), --list-gpus;
#             --blocks=B sets the CUDA block count (default: automatic).
#   output    -d / --work-dir=DIR (default ./work.tmp): statistics_01.00 holds
#             Best Score, Best Position (i,j), the stage-1 Total (ms) and MCUPS
#             (full matrix size / stage-1 time, also when blocks were pruned);
#             "statistics" holds the per-stage timer. "run" uses a temporary
#             work directory and removes it. -v 0|1|2 sets the verbosity.
#   input     one record per FASTA file (everything after the first line is
#             read as sequence), letters upper-cased, N scores like any letter
#             (--clear-n changes that for SEQ1 only). SEQ1 runs down the rows,
#             SEQ2 across the columns; up to 134150000 bp each.
#
# Example, stage 1 only, on GPU 0:
#   benchmarks/peers/masa.sh build .devdata/masasrc .devdata/masabuild
#   benchmarks/peers/masa.sh run .devdata/masabuild a_1M.fa b_4.6M.fa -1 -n --gpu=0
set -euo pipefail
cmd=${1:?build or run}
case "$cmd" in
build)
    src=${2:?source tree}; build=${3:?build dir}
    if [ -f "$src/src/CUDAligner.cu" ]; then tree=$src
    elif [ -f "$src/masa-cudalign-4.0.2.1028/src/CUDAligner.cu" ]; then tree=$src/masa-cudalign-4.0.2.1028
    else echo "masa: no masa-cudalign source under $src" >&2; exit 1; fi
    cuda=${CUDA_HOME:-/usr/local/cuda}
    arch=${MASA_ARCH:-sm_90}
    rm -rf "$build"; mkdir -p "$build"; cp -a "$tree"/. "$build"/
    cd "$build"
    # generated autotools files newer than their inputs, so make never reruns automake
    for d in . libs/masa-core; do
        touch "$d"/aclocal.m4 "$d"/configure "$d"/Makefile.in "$d"/src/config.h.in
    done

    # scoring constants (see the notes above)
    for want in 'DNA_MATCH *(1)' 'DNA_MISMATCH *(-3)' 'DNA_GAP_OPEN *(3)' 'DNA_GAP_EXT *(2)'; do
        grep -q "^#define $want" src/CUDAligner.hpp || {
            echo "masa: src/CUDAligner.hpp lacks #define $want" >&2; exit 1; }
    done

    cat > src/masa_compat.h <<'EOF'
/* Added by benchmarks/peers/masa.sh: stand-ins for CUDA APIs removed in
 * CUDA 12/13 (texture references, some cudaDeviceProp fields). */
#pragma once
#include <string.h>
#include <cuda_runtime.h>

/* Attribute of the device whose PCI location matches the properties. */
static inline int masa_attr(const cudaDeviceProp& p, cudaDeviceAttr a) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    for (int d = 0; d < n; d++) {
        int bus = -1, dom = -1, dev = -1, v = 0;
        cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, d);
        cudaDeviceGetAttribute(&dom, cudaDevAttrPciDomainId, d);
        cudaDeviceGetAttribute(&dev, cudaDevAttrPciDeviceId, d);
        if (bus == p.pciBusID && dom == p.pciDomainID && dev == p.pciDeviceID) {
            cudaDeviceGetAttribute(&v, a, d);
            return v;
        }
    }
    return 0;
}

#ifdef __CUDACC__
/* A former texture reference is a __constant__ cudaTextureObject_t over the
 * same linear memory (element read mode, zero outside the range). Slot k keeps
 * its object while pointer, size and device stay the same. */
struct masa_tex_slot { cudaTextureObject_t obj; const void* ptr; size_t bytes; int dev; int valid; };
static masa_tex_slot masa_tex_slots[3];

static inline cudaError_t masa_unbind(int k) {
    masa_tex_slot& s = masa_tex_slots[k];
    cudaError_t e = cudaSuccess;
    if (s.valid) e = cudaDestroyTextureObject(s.obj);
    s.valid = 0;
    return e;
}

template <class T>
static cudaError_t masa_bind(int k, const cudaTextureObject_t& sym, const void* ptr, size_t bytes) {
    masa_tex_slot& s = masa_tex_slots[k];
    int dev = -1;
    cudaGetDevice(&dev);
    if (s.valid && s.ptr == ptr && s.bytes == bytes && s.dev == dev) return cudaSuccess;
    masa_unbind(k);
    cudaResourceDesc r;
    memset(&r, 0, sizeof(r));
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = const_cast<void*>(ptr);
    r.res.linear.desc = cudaCreateChannelDesc<T>();
    r.res.linear.sizeInBytes = bytes;
    cudaTextureDesc t;
    memset(&t, 0, sizeof(t));
    t.readMode = cudaReadModeElementType;
    cudaError_t e = cudaCreateTextureObject(&s.obj, &r, &t, NULL);
    if (e != cudaSuccess) return e;
    s.ptr = ptr; s.bytes = bytes; s.dev = dev; s.valid = 1;
    return cudaMemcpyToSymbol(sym, &s.obj, sizeof(s.obj));
}
#endif
EOF
    sed -i 's|^#include <cuda_runtime.h>|&\n#include "masa_compat.h"|' src/cuda_util.h
    sed -i -E 's/\b([A-Za-z]*[pP]rop)\.clockRate\b/masa_attr(\1, cudaDevAttrClockRate)/g
        s/\b([A-Za-z]*[pP]rop)\.deviceOverlap\b/masa_attr(\1, cudaDevAttrGpuOverlap)/g
        s/\b([A-Za-z]*[pP]rop)\.kernelExecTimeoutEnabled\b/masa_attr(\1, cudaDevAttrKernelExecTimeout)/g
        s/\bcuMemGetInfo\(/cudaMemGetInfo(/g' src/cuda_util.cpp
    # texture slots: 0 t_seq0, 1 t_seq1 (unsigned char), 2 t_busH (int2); the
    # t_busH object lives until unbind_textures(), i.e. until the sequences change
    sed -i -E 's/^texture< *[a-z0-9 ]+, *1, *cudaReadModeElementType> *(t_[A-Za-z0-9]+);/__constant__ cudaTextureObject_t \1;/
        s/tex1Dfetch\((t_seq[01]),/tex1Dfetch<unsigned char>(\1,/g
        s/tex1Dfetch\(t_busH,/tex1Dfetch<int2>(t_busH,/g
        s/cudaBindTexture\(0, *t_seq0,/masa_bind<unsigned char>(0, t_seq0,/
        s/cudaBindTexture\(0, *t_seq1,/masa_bind<unsigned char>(1, t_seq1,/
        s/cudaBindTexture\(0, *t_busH,/masa_bind<int2>(2, t_busH,/
        s/cudaUnbindTexture\(t_seq0\)/masa_unbind(0)/
        s/cudaUnbindTexture\(t_seq1\)/masa_unbind(1)/
        s/cudaUnbindTexture\(t_busH\)/cudaSuccess/
        s/^void unbind_textures\(\) \{/&\n\tcutilSafeCall(masa_unbind(2));/' src/CUDAligner.cu
    if grep -nE 'texture<|cudaBindTexture|cudaUnbindTexture|tex1Dfetch\(' src/CUDAligner.cu >&2; then
        echo "masa: texture edits incomplete" >&2; exit 1
    fi
    sed -i -E 's/-lcuda( |$)/\1/g' Makefile.in

    ./configure --with-cuda="$cuda" --with-cuda-arch="$arch" \
        ac_cv_lib_cuda_cuMemcpy=yes LDFLAGS="-Wl,-rpath,$cuda/lib64" > configure.log 2>&1 \
        || { tail -20 configure.log >&2; exit 1; }
    sed -i -E 's/-lcuda( |$)/\1/g' Makefile     # LIBS from configure's libcuda check
    make -j"${MASA_JOBS:-$(nproc)}" > build.log 2>&1 || { grep -E 'error|Error' build.log | head -20 >&2; exit 1; }
    echo "masa: built $build/cudalign ($arch)"
    ;;
run)
    build=${2:?build dir}; s1=${3:?seq1 fasta}; s2=${4:?seq2 fasta}; shift 4
    bin=$(readlink -f "$build/cudalign"); s1=$(readlink -f "$s1"); s2=$(readlink -f "$s2")
    log=${MASA_LOG:-/tmp/masa.last}
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/masa.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    rc=0
    start=$(date +%s%N)
    (cd "$tmp" && "$bin" --work-dir="$tmp/work" "$@" "$s1" "$s2") > "$tmp/stdout" 2> "$tmp/stderr" || rc=$?
    end=$(date +%s%N)
    rm -rf "$log"; mkdir -p "$log"
    cp "$tmp/stdout" "$tmp/stderr" "$log"/
    cp "$tmp"/work/statistics* "$log"/ 2>/dev/null || true
    st=
    for f in "$tmp"/work/statistics_01.*; do [ -f "$f" ] && { st=$f; break; }; done
    if [ "$rc" -ne 0 ] || [ -z "$st" ]; then
        echo "masa: exit $rc, no stage-1 statistics; logs in $log" >&2
        tail -5 "$tmp/stderr" >&2
        exit 1
    fi
    score=$(sed -n 's/^ *Best Score: *//p' "$st")
    pos=$(sed -n 's/^ *Best Position: *//p' "$st")
    ms=$(sed -n 's/^ *Total: *//p' "$st" | head -1)
    mcups=$(sed -n 's/^ *MCUPS: *//p' "$st" | head -1)
    pruned=$(awk '/^Pruned Blocks:/ {p = $3} END {print p}' "$st")
    printf 'masa %s: whole process %d ms, stage1 %s ms, %s GCUPS, score %s at %s, pruned %s%% blocks\n' \
        "$*" "$(( (end - start) / 1000000 ))" "$ms" "$(awk -v m="$mcups" 'BEGIN {printf "%.2f", m / 1000}')" \
        "$score" "$pos" "$pruned"
    ;;
*) echo "usage: $0 build SRC BUILD | run BUILD SEQ1.fa SEQ2.fa [options]" >&2; exit 2 ;;
esac
