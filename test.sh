#!/bin/sh
# Builds Browser Bridge and runs the whole test suite: the -Werror build's
# suites, the same suites and the browser tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, the integration tests with the host under
# valgrind, the portable POSIX build's suites (the code paths macOS and the
# BSDs take, and the check against Apple's headers), a short run of every
# fuzz target, and make distcheck. The
# browser tests run once, against the sanitizer build (they read its
# reports); distcheck, which checks that the release tarball builds and
# passes, runs every suite but them.
#
# The browser tests mostly wait, so the stages run in two lanes side by
# side, each in its own build dir: the sanitizer build with the browser
# tests, then the fuzzers, then distcheck; the -Werror build's suites, then
# valgrind, then the portable build. A stage runs even when one before it failed, so one run shows
# every failure. Each stage's output is printed when it ends; at the end a
# table gives each stage's start, time and CPU time and the ten slowest
# test files (docs/testing.md). Installs missing Debian packages first (as
# root).
set -eu
cd "$(dirname "$0")"
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)
run_started=$(date +%s)
# The integration suite runs a file per CPU at a time in every stage (its
# files wait on hosts more than they compute; each has its own host and
# directories), distcheck's included.
INTEGRATION_CONCURRENCY=${INTEGRATION_CONCURRENCY:-$jobs}
export INTEGRATION_CONCURRENCY

scripts/deps.sh test
./autogen.sh >/dev/null 2>&1 || ./autogen.sh

# What the stages leave for the summary: their output, results and times.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The 1-minute load average.
load() {
	cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo '?'
}

# The CPU seconds (user and system) a stage's children used: FILE holds
# the output of the `times` builtin before the stage and after it (run in
# the lane's own shell: in a command substitution it would count nothing).
cpu_used() {
	awk '
		function seconds(field,    part) { split(field, part, "m"); return part[1] * 60 + part[2] }
		NR == 2 { before = seconds($1) + seconds($2) }
		NR == 4 { after = seconds($1) + seconds($2) }
		END { printf "%d\n", after - before }' "$1"
}

# Prints the automake counts of the suites a stage ran (the test-suite.log
# files under its build dir newer than its stamp): passed, then failed.
count() {
	passed=0
	failed=0
	for log in $(find "$1" -name test-suite.log -newer "$2"); do
		p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
		f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
		e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
		passed=$((passed + ${p:-0}))
		failed=$((failed + ${f:-0} + ${e:-0}))
	done
	echo "$passed $failed"
}

# Prints one line per test file a stage ran, "SECONDS<tab>STAGE<tab>FILE":
# for a Node suite each of its files (from its .file-times, written by
# tests/file-times.mjs), for the others the suite (from the time
# tests/timed-driver.sh wrote into its .trs file).
file_times() {
	for trs in $(find "$1" -name '*.trs' -newer "$2"); do
		suite=${trs%.trs}
		if [ -f "$suite.file-times" ] && [ "$suite.file-times" -nt "$2" ]; then
			sed "s|	|	$3	${suite##*/}: |" "$suite.file-times"
		else
			sed -n "s|^:test-seconds: \(.*\)|\1	$3	${suite##*/}|p" "$trs"
		fi
	done
}

# Prints what a failed test printed: for the Node suites, the runner's
# list of failing tests with their errors; for the others, the log's end.
show_failure() {
	echo "---- $1"
	if grep -q 'failing tests:$' "$1"; then
		sed -n '/failing tests:$/,$p' "$1" | head -n 200
	else
		tail -n 60 "$1"
	fi
}

# Names what failed in a log, for the last lines a CI page shows: each
# failing Node test, or else the suite.
name_failures() {
	if grep -q 'failing tests:$' "$1"; then
		sed -n '/failing tests:$/,$p' "$1" | grep -E '^(✖|test at) ' | grep -v 'failing tests:$' |
			sed "s|^|failed in ${1##*/}: |"
	else
		echo "failed: ${1##*/}"
	fi
}

# Runs one stage: configure the build dir once, then the given make goals,
# with its output going to $work/NAME.out and printed when it ends. Only
# what this stage's make wrote counts (a stamp marks its start), so a
# suite's log left from an earlier stage or run is neither counted nor
# shown. Writes $work/NAME.result ("status seconds start cpu load passed
# failed"), $work/NAME.times (its test files' times) and, when it failed,
# $work/NAME.failed (the logs of its failed tests).
stage() {
	name="$1"; dir="$top/_build-$2"; flags="$3"; shift 3
	out="$work/$name.out"
	started=$(date +%s)
	times >"$work/$name.cpu"
	echo "==> $name: started ($((started - run_started)) s into the run, load $(load))"
	stamp="$dir/.test-stage"
	status=0
	{
		echo "==> $name: configure $flags" &&
		mkdir -p "$dir" &&
		(cd "$dir" && { [ -f Makefile ] || "$top/configure" -q $flags; }) &&
		echo "==> $name: make $*" &&
		touch "$stamp" &&
		(cd "$dir" && make -s -j"$jobs" "$@")
	} >"$out" 2>&1 || status=$?
	seconds=$(($(date +%s) - started))
	times >>"$work/$name.cpu"
	cpu=$(cpu_used "$work/$name.cpu")
	echo "$status $seconds $((started - run_started)) $cpu $(load) $(count "$dir" "$stamp")" >"$work/$name.result"
	file_times "$dir" "$stamp" "$name" >"$work/$name.times"
	if [ "$status" -ne 0 ]; then
		for trs in $(find "$dir" -name '*.trs' -newer "$stamp"); do
			grep -qE '^:test-result: (FAIL|ERROR)' "$trs" && echo "${trs%.trs}.log"
		done >"$work/$name.failed"
	fi
	cat "$out"
	echo "==> $name: $seconds s, $cpu CPU s (load $(load))"
	if [ "$status" -ne 0 ]; then
		while read -r log; do show_failure "$log"; done <"$work/$name.failed"
		echo "==> $name failed"
	fi
}

# The stages in the order the summary lists them.
stages="unit-and-integration sanitizers integration-under-valgrind portable fuzz-smoke distcheck"
werror="--enable-werror"
sanitizers="--enable-werror --enable-sanitizers"
portable="--enable-werror --with-os=portable"

# Lane 1: the sanitizer build, browser tests included (the longest stage,
# mostly waiting on browsers), then the fuzzers and distcheck (whose
# configure flags are its own).
(
	stage sanitizers sanitizers "$sanitizers" check
	stage fuzz-smoke sanitizers "$sanitizers" fuzz-smoke FUZZ_JOBS="$jobs"
	stage distcheck sanitizers "$sanitizers" distcheck \
		DISTCHECK_CONFIGURE_FLAGS="--enable-werror --disable-browser-tests"
) &
lane1=$!
# Lane 2: the -Werror build's suites (the browser tests run in lane 1),
# then the host under valgrind, then the portable POSIX build's suites (no
# _GNU_SOURCE, no /proc: the OS layer's portable files, docs/architecture.md).
(
	stage unit-and-integration main "$werror" check 'TESTS=$(BROWSERLESS_TESTS)'
	stage integration-under-valgrind main "$werror" check \
		TESTS=tests/integration.sh INTEGRATION_VALGRIND=1
	stage portable portable "$portable" check 'TESTS=$(BROWSERLESS_TESTS)'
) &
lane2=$!
wait "$lane1" "$lane2"

echo
echo "==> times (whole run $(($(date +%s) - run_started)) s, load now $(load))"
row='%-28s %8s %8s %8s %6s  %s\n'
printf "$row" stage 'start s' seconds 'CPU s' load result
passed=0
failed=0
for name in $stages; do
	read -r status seconds start cpu at p f <"$work/$name.result"
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$status" -eq 0 ] || failed=$((failed > 0 ? failed : 1))
	printf "$row" "$name" "$start" "$seconds" "$cpu" "$at" "$([ "$status" -eq 0 ] && echo ok || echo FAILED)"
done
echo "==> the ten slowest test files (seconds, stage, suite: file)"
cat "$work"/*.times | sort -t "$(printf '\t')" -k 1,1 -g -r | head -n 10 |
	awk -F '\t' '{ printf "%8.1f  %-28s %s\n", $1, $2, $3 }'

if [ "$failed" -ne 0 ]; then
	for name in $stages; do
		[ -f "$work/$name.failed" ] || continue
		echo "==> $name failed"
		while read -r log; do name_failures "$log"; done <"$work/$name.failed"
	done
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
