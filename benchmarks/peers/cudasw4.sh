#!/usr/bin/env bash
# Build CUDASW++ 4.0 (github.com/asbschmidt/CUDASW4) for the GPUs of this
# machine and time its search beside swgpu's, checking that the scores agree.
#
#   [ARCH=sm_90] benchmarks/peers/cudasw4.sh build SRC BUILD   # SRC: a CUDASW4 source tree
#   benchmarks/peers/cudasw4.sh makedb BUILD DB.fa[.gz] DBDIR
#   benchmarks/peers/cudasw4.sh run BUILD QUERIES.fa DBDIR [align options]
#   benchmarks/peers/cudasw4.sh check CUDASW4.tsv SWGPU.tsv
#
# Scoring: CUDASW++'s kernels charge a gap of length k as gop + (k-1) gex, as
# swgpu does, so `--mat blosum62 --gop -11 --gex -1` is swgpu's default
# protein scoring (BLOSUM62, --gap-open 11 --gap-extend 1). "run" uses the DPX
# kernels (--dpx, Hopper), top 10, TSV output in /tmp/cudasw4.tsv, and prints
# the whole-process wall time and CUDASW++'s own timings (--verbose).
# "check" compares each query's top scores with swgpu's (`swgpu search ...
# --outfmt "6 qseqid score" --evalue 1e300`: no E-value cut, as CUDASW++; the
# same --top): the lists of scores must be equal.
set -euo pipefail
cmd=${1:?build, makedb, run or check}
case "$cmd" in
build)
    src=${2:?source tree}; build=${3:?build dir}
    rm -rf "$build"; mkdir -p "$build"; cp -r "$src"/. "$build"/
    cd "$build"
    # -arch=native: the GPUs this build runs on (Hopper for the DPX kernels);
    # ARCH=sm_90 builds for Hopper on a machine without a GPU.
    [ -z "${ARCH:-}" ] || sed -i "s/-arch=native/-arch=$ARCH/" Makefile
    # CUDA 13 ships NVTX as headers only (nvtx3), without libnvToolsExt
    cudalib=$(dirname "$(command -v nvcc)")/../lib64
    ls "$cudalib"/libnvToolsExt.so* > /dev/null 2>&1 || sed -i 's/ -lnvToolsExt//' Makefile
    # makedb.cpp includes Thrust, which CUDA 13 compiles only as CUDA source
    sed -i '/^$(BUILDDIR)\/makedb.o/{n;s/-c \$</-x cu -c $</;s/\$(COMPILE)/$(COMPILER) $(NVCC_FLAGS) $(DIALECT) $(OPTIMIZATION) $(WARNINGS) -x cu -c $< -o $@/}' Makefile
    make -j "$(nproc)" align makedb > build.log 2>&1 || { tail -30 build.log; exit 1; }
    echo "cudasw4: built $build/align and $build/makedb"
    ;;
makedb)
    build=${2:?build dir}; fasta=${3:?database fasta}; dir=${4:?database folder}
    mkdir -p "$dir"
    "$build"/makedb "$fasta" "$dir"/db > "$dir"/makedb.log 2>&1
    echo "cudasw4: database $dir/db"
    ;;
run)
    build=${2:?build dir}; q=${3:?query fasta}; dir=${4:?database folder}; shift 4
    start=$(date +%s%N)
    "$build"/align --query "$q" --db "$dir"/db --dpx --top 10 --tsv --of /tmp/cudasw4.tsv --verbose "$@" \
        > /tmp/cudasw4.log 2>&1
    end=$(date +%s%N)
    printf 'cudasw4 %s: whole process %d ms; its timings:\n' "$*" "$(( (end - start) / 1000000 ))"
    grep -iE 'gcups|time|total' /tmp/cudasw4.log | tail -8 || true
    ;;
check)
    theirs=${2:?CUDASW++ tsv}; ours=${3:?swgpu tsv}
    python3 - "$theirs" "$ours" <<'PY'
import sys
from collections import defaultdict

theirs, ours = defaultdict(list), defaultdict(list)
with open(sys.argv[1]) as f:
    for line in f:
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 5 or not fields[0].isdigit():
            continue  # the header line
        theirs[int(fields[0])].append(int(fields[4]))  # query number, ..., result score
names = []
with open(sys.argv[2]) as f:
    for line in f:
        name, score = line.split("\t")[:2]
        if name not in names:
            names.append(name)
        ours[names.index(name)].append(int(score))
bad = [k for k in sorted(set(theirs) | set(ours)) if sorted(theirs[k], reverse=True) != sorted(ours[k], reverse=True)]
print(f"cudasw4 check: {len(theirs)} queries, top scores "
      + ("equal" if not bad else f"differ for queries {bad[:10]}"))
sys.exit(1 if bad else 0)
PY
    ;;
*) echo "usage: $0 build SRC BUILD | makedb BUILD DB DIR | run BUILD Q DIR [options] | check T.tsv S.tsv" >&2
   exit 2 ;;
esac
