#!/bin/sh
# Automake's test driver, timed: `make check` calls it as LOG_DRIVER with
# the driver's own command line after it (the options make passes, then
# the test). It runs that driver and adds the test's wall time in seconds
# to the test's .trs file as ":test-seconds: N" (the harness reads only
# the fields it knows and ignores others); ./test.sh reads them for its
# table of the slowest test files. Exits with the driver's status.

trs=
previous=
for arg in "$@"; do
	[ "$previous" = --trs-file ] && trs=$arg
	previous=$arg
done
started=$(date +%s.%N)
"$@"
status=$?
if [ -n "$trs" ] && [ -f "$trs" ]; then
	ended=$(date +%s.%N)
	awk -v a="$started" -v b="$ended" 'BEGIN { printf ":test-seconds: %.1f\n", b - a }' >>"$trs"
fi
exit $status
