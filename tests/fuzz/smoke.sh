#!/bin/sh
# Runs one fuzz target of `make fuzz-smoke` for SECONDS from its seed
# corpus (SRCDIR/tests/fuzz/corpus/TARGET, read only; what it finds goes to
# tests/fuzz/found-TARGET in the build tree), its output kept in
# tests/fuzz/fuzz-TARGET.log. Prints the run's count of executed inputs;
# on a failure, the log's end and where the failing input was written.
# Run from the build dir: smoke.sh TARGET SECONDS SRCDIR
set -u
target=$1
seconds=$2
srcdir=$3
log=tests/fuzz/fuzz-$target.log

mkdir -p "tests/fuzz/found-$target"
if ! "tests/fuzz/fuzz-$target" -max_total_time="$seconds" \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="tests/fuzz/fuzz-$target-" \
	"tests/fuzz/found-$target" "$srcdir/tests/fuzz/corpus/$target" \
	>"$log" 2>&1; then
	tail -n 40 "$log"
	echo "make fuzz-smoke: fuzz-$target failed; the input is tests/fuzz/fuzz-$target-crash-* (or leak-, timeout-), see above" >&2
	exit 1
fi
echo "  FUZZ     $target for $seconds s: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") inputs"
