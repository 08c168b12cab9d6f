#!/usr/bin/env bash
# Build GASAL2 (github.com/nahmedraja/GASAL2) for an H100 and run its test
# program on pair files, the way the GPU traceback issue prescribes:
#   configure.sh CUDA, -Werror removed, -lgasal before -lcudart,
#   make GPU_SM_ARCH=sm_90 MAX_QUERY_LEN=1104 N_CODE=0x4E N_PENALTY=1,
#   test program's STREAM_BATCH_SIZE raised to 20000.
#
#   benchmarks/peers/gasal2.sh build SRC BUILD      # SRC: a GASAL2 source tree
#   benchmarks/peers/gasal2.sh run BUILD Q.fa T.fa [options of test_prog.out]
# "run" prints the whole-process wall time and GASAL2's own total timer.
set -euo pipefail
cmd=${1:?build or run}
case "$cmd" in
build)
    src=${2:?source tree}; build=${3:?build dir}
    rm -rf "$build"; mkdir -p "$build"; cp -r "$src"/. "$build"/
    cd "$build"
    cuda=${CUDA_HOME:-/usr/local/cuda}
    if ! ./configure.sh "$cuda" > configure.log 2>&1; then
        # the same edits by hand, for a toolkit without the targets/ layout
        inc=$(dirname "$(find "$cuda"/ -name cuda_runtime.h | head -1)")
        lib=$(dirname "$(find "$cuda"/ -name 'libcudart.so*' | head -1)")
        sed -i "s,NVCC=.*,NVCC=$cuda/bin/nvcc,g" Makefile
        sed -i "s,.*cuda_runtime\.h\",#include \"$inc/cuda_runtime.h\",g" src/gasal.h
        sed -i "s,CUDA_LD_LIBRARY=.*,CUDA_LD_LIBRARY=$lib,g" test_prog/Makefile
    fi
    sed -i 's/-Xptxas -Werror//g; s/ -Werror//g' Makefile test_prog/Makefile
    sed -i 's/-lcudart -lgasal/-lgasal -lcudart/' test_prog/Makefile
    sed -i 's/^#define STREAM_BATCH_SIZE .*/#define STREAM_BATCH_SIZE 20000/' test_prog/test_prog.cpp
    make GPU_SM_ARCH=sm_90 MAX_QUERY_LEN=1104 N_CODE=0x4E N_PENALTY=1 > build.log 2>&1
    (cd test_prog && make test_prog.out >> ../build.log 2>&1)
    echo "gasal2: built $build/test_prog/test_prog.out"
    ;;
run)
    build=${2:?build dir}; q=${3:?query fasta}; t=${4:?target fasta}; shift 4
    start=$(date +%s%N)
    "$build"/test_prog/test_prog.out "$@" "$q" "$t" > /tmp/gasal2.out 2> /tmp/gasal2.err
    end=$(date +%s%N)
    own=$(grep -o 'Total execution time (in milliseconds): [0-9.]*' /tmp/gasal2.err | awk '{print $NF}')
    printf 'gasal2 %s: whole process %d ms, own timer %s ms, %s result lines\n' "$*" \
        "$(( (end - start) / 1000000 ))" "$own" "$(wc -l < /tmp/gasal2.out)"
    ;;
*) echo "usage: $0 build SRC BUILD | run BUILD Q T [options]" >&2; exit 2 ;;
esac
