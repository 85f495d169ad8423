#!/bin/sh
# limit-files.sh N COMMAND [ARG...]: runs COMMAND with at most N open file
# descriptors (the shell's ulimit, where Linux alone has prlimit(1)).
limit=$1
shift
ulimit -n "$limit" && exec "$@"
