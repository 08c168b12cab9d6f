#!/usr/bin/env bash
# swgpu screen beside GASAL2 on the pairs of benchmarks/make_pairs.py, whole
# processes, alternating, ROUNDS rounds; the scores of both are compared.
#
#   benchmarks/screen_vs_gasal2.sh GASAL2_BUILD PAIRS_DIR [ROUNDS] [SWGPU_SRC]
#
# With BASE_SRC=DIR (another tree's src/) each round runs that tree's swgpu too
# ("base"), so that two trees and GASAL2 are timed in the same call.
# GASAL2_BUILD: a tree built by `benchmarks/peers/gasal2.sh build`; PAIRS_DIR
# holds pairs_query.fa and pairs_target.fa. Scoring: GASAL2 `-a 2 -b 3 -q 5 -r 2`
# (a gap of k costs 5 + 2k) is swgpu's --match 2 --mismatch -3 --gap-open 7
# --gap-extend 2 (open + (k-1)*extend). Prints one line per run: who, job,
# seconds, and swgpu's --timings; then whether the scores agree (GASAL2's from its -p output).
set -euo pipefail
gasal=$(realpath "${1:?GASAL2 build dir}")
dir=$(realpath "${2:?pairs dir}")
rounds=${3:-3}
src=${4:-}
[ -n "$src" ] && export PYTHONPATH=$(realpath "$src")${PYTHONPATH:+:$PYTHONPATH}
q=$dir/pairs_query.fa
t=$dir/pairs_target.fa
scoring=(--match 2 --mismatch -3 --gap-open 7 --gap-extend 2)
out=${OUT:-/tmp}/screen_vs_gasal2
mkdir -p "$out"
secs() { python3 -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / 1e9:.2f}')" "$@"; }
run() {  # name file command...
    local name=$1 log=$2; shift 2
    local a b
    a=$(date +%s%N)
    "$@" > "$log.out" 2> "$log.err" || { echo "$name failed:"; tail -5 "$log.err"; return 1; }
    b=$(date +%s%N)
    printf '%-22s %6s s  %s\n' "$name" "$(secs "$a" "$b")" "$(grep -h "^swgpu screen: [a-z]" "$log.err" | sed "s/swgpu screen: //; s/  */ /g" | tr "\n" " " | cut -c1-200)"
}
for r in $(seq "$rounds"); do
    echo "--- round $r"
    if [ -n "${BASE_SRC:-}" ]; then
        PYTHONPATH=$(realpath "$BASE_SRC")${PYTHONPATH_REST:+:$PYTHONPATH_REST} run "base sam" "$out/base_sam" \
            python3 -m swgpu screen -q "$q" -t "$t" "${scoring[@]}" --device cuda --threshold 0 -f sam \
            -o "$out/base.sam" --timings
        PYTHONPATH=$(realpath "$BASE_SRC")${PYTHONPATH_REST:+:$PYTHONPATH_REST} run "base scores" "$out/base_sc" \
            python3 -m swgpu screen -q "$q" -t "$t" "${scoring[@]}" --device cuda -o "$out/base.tsv" --timings
    fi
    run "swgpu sam" "$out/sw_sam" python3 -m swgpu screen -q "$q" -t "$t" "${scoring[@]}" --device cuda \
        --threshold 0 -f sam -o "$out/sw.sam" --timings
    run "gasal2 -t -p" "$out/ga_tp" "$gasal/test_prog/test_prog.out" -a 2 -b 3 -q 5 -r 2 -t -p -y local "$q" "$t"
    run "swgpu scores" "$out/sw_sc" python3 -m swgpu screen -q "$q" -t "$t" "${scoring[@]}" --device cuda \
        -o "$out/sw.tsv" --timings
    run "gasal2 scores" "$out/ga_sc" "$gasal/test_prog/test_prog.out" -a 2 -b 3 -q 5 -r 2 -y local "$q" "$t"
done
python3 - "$out" <<'PY'
import sys, re
out = sys.argv[1]
ours = {}
with open(f"{out}/sw.tsv") as fh:
    next(fh)
    for line in fh:
        qn, tn, s = line.rstrip("\n").split("\t")
        ours[qn] = int(s)
theirs = {}
pat = re.compile(r"query_name=(\S+)\ttarget_name=\S+\tscore=(-?\d+)")
with open(f"{out}/ga_tp.out") as fh:
    for line in fh:
        m = pat.match(line)
        if m:
            theirs[m.group(1)] = int(m.group(2))
same = sum(ours.get(k) == v for k, v in theirs.items())
print(f"scores: {len(ours):,} swgpu, {len(theirs):,} GASAL2, {same:,} equal"
      + ("" if same == len(ours) == len(theirs) else "  <-- DIFFER"))
import filecmp, os
for a, b in (("base.sam", "sw.sam"), ("base.tsv", "sw.tsv")):
    if os.path.exists(f"{out}/{a}"):
        same = filecmp.cmp(f"{out}/{a}", f"{out}/{b}", shallow=False)
        if a.endswith(".sam"):  # the @PG line holds the command line: compare the rest
            with open(f"{out}/{a}") as x, open(f"{out}/{b}") as y:
                same = all(p == q for p, q in zip(x, y) if not p.startswith("@PG")) and \
                    sum(1 for _ in open(f"{out}/{a}")) == sum(1 for _ in open(f"{out}/{b}"))
        print(f"{a} == {b}: {same}")
PY
