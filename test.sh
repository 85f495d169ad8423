#!/bin/sh
# Builds Browser Bridge and runs the whole test suite: the -Werror build,
# the same suite under AddressSanitizer and UndefinedBehaviorSanitizer, the
# integration tests with the host under valgrind, a short run of every fuzz
# target, and make distcheck. The browser tests run in the first two stages;
# distcheck, which checks that the release tarball builds and passes, runs
# every suite but them (they would test the same sources a third time).
# Installs missing Debian packages first (as root).
set -eu
cd "$(dirname "$0")"
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

scripts/deps.sh test
./autogen.sh >/dev/null 2>&1 || ./autogen.sh

passed=0
failed=0
# Adds one stage's automake counts to the totals.
count() {
	log="$1/test-suite.log"
	[ -f "$log" ] || return 0
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${e:-0}))
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

# Names the failing Node tests of a log, one line each, for the last lines
# a CI page shows.
name_failures() {
	sed -n '/failing tests:$/,$p' "$1" | grep -E '^(✖|test at) ' | grep -v 'failing tests:$' | sed "s|^|failed in ${1##*/}: |"
}

# Runs one stage: configure the build dir once, then the given make goals.
stage() {
	name="$1"; dir="$top/_build-$2"; flags="$3"; shift 3
	echo "==> $name: configure $flags"
	mkdir -p "$dir"
	(cd "$dir" && [ -f Makefile ] || "$top/configure" -q $flags)
	echo "==> $name: make $*"
	status=0
	started=$(date +%s)
	(cd "$dir" && make -s -j"$jobs" "$@") || status=$?
	echo "==> $name: $(($(date +%s) - started)) s"
	count "$dir"
	if [ "$status" -ne 0 ]; then
		failed_logs=
		for trs in "$dir"/tests/*.trs; do
			grep -qE '^:test-result: (FAIL|ERROR)' "$trs" 2>/dev/null &&
				failed_logs="$failed_logs ${trs%.trs}.log"
		done
		for log in $failed_logs; do show_failure "$log"; done
		echo "==> $name failed"
		for log in $failed_logs; do name_failures "$log"; done
		echo "$passed passed, $((failed > 0 ? failed : 1)) failed"
		exit 1
	fi
}

stage "unit and integration" main "--enable-werror" check
stage "sanitizers" sanitizers "--enable-werror --enable-sanitizers" check
stage "integration under valgrind" main "--enable-werror" check \
	TESTS=tests/integration.sh INTEGRATION_VALGRIND=1
stage "fuzz smoke" main "--enable-werror" fuzz-smoke
stage "distcheck" main "--enable-werror" distcheck \
	DISTCHECK_CONFIGURE_FLAGS="--enable-werror --disable-browser-tests"
echo "$passed passed, $failed failed"
