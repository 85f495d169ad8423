#!/bin/sh
# The command line as a user meets it: every command answers --help and -h
# with its usage and exit 0, without doing anything (stdio does not read
# stdin, doctor does not check, install writes nothing); unknown commands,
# options that a command does not take, missing values and unknown values
# are usage errors: a message naming them and exit status 2.
# `make check` runs it with BRIDGE_BIN set.

set -u

BRIDGE_BIN=${BRIDGE_BIN:-./browser-bridge}
dir=$(mktemp -d) || exit 99
trap 'rm -rf "$dir"' EXIT
# A private home: nothing a command might write can touch the user's files.
export HOME="$dir/home" XDG_CONFIG_HOME="$dir/config" XDG_RUNTIME_DIR="$dir/run"
mkdir -p "$HOME" || exit 99
# stdin for every run: a FIFO held open and never written, so a command
# that reads stdin waits (until the timeout) instead of seeing EOF.
mkfifo "$dir/stdin" && exec 3<>"$dir/stdin" || exit 99
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# with_time_limit SECONDS COMMAND [ARG...]: runs COMMAND (its stdin this
# function's), stopped with SIGTERM past SECONDS; returns its exit status.
# GNU timeout(1) is not on macOS or the BSDs. The watchdog looks every
# tenth of a second and ends with the command, leaving no process behind.
# (sh has no local variables: these names are the function's own.)
with_time_limit() {
	limit_ticks=$(($1 * 10))
	shift
	# A command started with & reads /dev/null unless given its stdin.
	exec 9<&0
	"$@" <&9 9<&- &
	limited_pid=$!
	exec 9<&-
	(
		while [ "$limit_ticks" -gt 0 ] && kill -0 "$limited_pid" 2>/dev/null; do
			sleep 0.1
			limit_ticks=$((limit_ticks - 1))
		done
		kill "$limited_pid" 2>/dev/null
	) &
	watchdog_pid=$!
	wait "$limited_pid"
	limited_status=$?
	wait "$watchdog_pid"
	return "$limited_status"
}

# run EXPECTED-STATUS ARGS...: runs the binary with stdin held open (a
# command that reads it would hang until the timeout); keeps the output.
run() {
	want=$1
	shift
	with_time_limit 10 "$BRIDGE_BIN" "$@" <&3 >"$dir/out" 2>"$dir/err"
	got=$?
	[ "$got" -eq "$want" ] || fail "browser-bridge $*: exit $got, expected $want; stderr: $(cat "$dir/err")"
}

for command in serve token install uninstall doctor status stdio help version; do
	for flag in --help -h; do
		run 0 "$command" "$flag"
		grep -q "^usage: browser-bridge $command" "$dir/out" ||
			fail "browser-bridge $command $flag printed no usage: $(cat "$dir/out")"
	done
done
[ -e "$XDG_CONFIG_HOME/browser-bridge/token" ] && fail "token --help created a token"
[ -e "$HOME/.config/chromium" ] && fail "install --help wrote something"

run 0 --help
grep -q "^  stdio \[--instance NAME\]$" "$dir/out" || fail "--help does not list stdio"
run 0 help stdio
grep -q "^usage: browser-bridge stdio \[--instance NAME\]$" "$dir/out" || fail "help stdio printed: $(cat "$dir/out")"

# Standard input that epoll cannot watch (/dev/null, a file) is read to its
# end like a pipe: serve exits at once, saying it needs a browser on the
# other end, instead of waiting forever; stdio exits too. The timeout only
# stops a run that would never end.
: >"$dir/empty"
for input in /dev/null "$dir/empty"; do
	for args in "serve --port 0" stdio; do
		# shellcheck disable=SC2086 # args is a command and its options
		with_time_limit 30 "$BRIDGE_BIN" $args <"$input" >"$dir/out" 2>"$dir/err"
		got=$?
		[ "$got" -eq 0 ] || fail "browser-bridge $args <$input: exit $got, expected 0; stderr: $(cat "$dir/err")"
		[ -s "$dir/out" ] && fail "browser-bridge $args <$input wrote to stdout: $(cat "$dir/out")"
	done
done
with_time_limit 30 "$BRIDGE_BIN" serve --port 0 </dev/null >"$dir/out" 2>"$dir/err"
grep -q "standard input is not a pipe.*A browser starts the host itself" "$dir/err" ||
	fail "serve </dev/null does not say it needs a browser on the other end: $(cat "$dir/err")"

# expect_usage_error PATTERN ARGS...: exit 2 and a message matching PATTERN.
expect_usage_error() {
	pattern=$1
	shift
	run 2 "$@"
	grep -q "$pattern" "$dir/err" || fail "browser-bridge $*: stderr does not say \"$pattern\": $(cat "$dir/err")"
}
expect_usage_error 'browser-bridge stdio: --browser is not an option of stdio' stdio --browser nonsense
expect_usage_error 'browser-bridge status: --port is not an option of status' status --port 9
expect_usage_error 'browser-bridge install: --port is not an option of install' install --port 9
expect_usage_error 'unknown browser "nonsense"' install --browser nonsense
expect_usage_error 'unknown browser "nonsense"' doctor --browser nonsense
expect_usage_error 'unknown option --frob' stdio --frob
expect_usage_error 'unknown option --frob' --frob
expect_usage_error 'unknown command "frob"' frob
expect_usage_error 'unknown command "frob"' help frob
expect_usage_error 'missing value for the option --port' serve --port
expect_usage_error 'unexpected argument "extra"' status extra
expect_usage_error 'port' serve --port nonsense

run 0 version
grep -q '^browser-bridge [0-9]' "$dir/out" || fail "version printed: $(cat "$dir/out")"

if [ "$failures" -gt 0 ]; then
	echo "cli.sh: $failures failures" >&2
	exit 1
fi
echo "cli.sh: every command's help and every usage error behave"
