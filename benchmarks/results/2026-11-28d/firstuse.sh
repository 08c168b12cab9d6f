# $1: label, $2: venv, $3: clear (1: delete the package's Numba cache before each command)
V=$2; SP=$($V/bin/python -c "import swgpu, os; print(os.path.dirname(swgpu.__file__))")
cd /tmp
one(){ local name=$1; shift; if [ "$CLEAR" = 1 ]; then find $SP -name "*.nb[ic]" -delete; fi; local b=$(find $SP -name "*.nbc" | wc -l); local t0=$(date +%s.%N); $V/bin/swgpu "$@" --device cpu --quiet > /dev/null; local t1=$(date +%s.%N); local a=$(find $SP -name "*.nbc" | wc -l); echo "$LABEL $name: $(python3 -c "print(round($t1-$t0,2))") s, kernels compiled: $((a-b))"; }
LABEL=$1 CLEAR=$3
one demo demo -o /tmp/fu1.txt
one "screen 2,000 pairs -f sam" screen -q /tmp/s2k_q.fa -t /tmp/s2k_t.fa --threshold 0 -f sam -o /tmp/fu2.sam
one "align 50 x 400 (pairwise view)" align /tmp/a50.fa /tmp/a400.fa -o /tmp/fu3.txt
one "scan 100 x 256 bp, 300 kbp" scan -q /tmp/scanin/probes.fa -g /tmp/scanin/genome.fa --top 5 -o /tmp/fu4.tsv
one "align --ends 10 (10 kbp x lambda)" align /tmp/scanin/region.fa /tmp/scanin/lambda.fa --ends 10 --alignments 2 -f sam -o /tmp/fu5.sam
