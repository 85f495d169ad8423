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
# Adds the automake counts of the suites a stage ran (the test-suite.log
# files under its build dir newer than its stamp) to the totals.
count() {
	for log in $(find "$1" -name test-suite.log -newer "$2"); do
		p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
		f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
		e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
		passed=$((passed + ${p:-0}))
		failed=$((failed + ${f:-0} + ${e:-0}))
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

# Runs one stage: configure the build dir once, then the given make goals.
# Only what this stage's make wrote counts (a stamp marks its start), so a
# suite's log left from an earlier stage or run is neither counted nor shown.
stage() {
	name="$1"; dir="$top/_build-$2"; flags="$3"; shift 3
	echo "==> $name: configure $flags"
	mkdir -p "$dir"
	(cd "$dir" && [ -f Makefile ] || "$top/configure" -q $flags)
	echo "==> $name: make $*"
	stamp="$dir/.test-stage"
	touch "$stamp"
	status=0
	started=$(date +%s)
	(cd "$dir" && make -s -j"$jobs" "$@") || status=$?
	echo "==> $name: $(($(date +%s) - started)) s"
	count "$dir" "$stamp"
	if [ "$status" -ne 0 ]; then
		failed_logs=
		for trs in $(find "$dir" -name '*.trs' -newer "$stamp"); do
			grep -qE '^:test-result: (FAIL|ERROR)' "$trs" &&
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
