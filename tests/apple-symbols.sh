#!/bin/sh
# The Apple-headers check: every C library function the host calls must be
# one Apple's C library headers declare, or the host does not compile on
# macOS (Apple clang makes a call to an undeclared function an error).
# Reads the objects of the build (host/libbridge.a, with compat/, and
# host/main.o) with nm: the symbols they use and none of them defines, of
# those the ones the C library here (glibc) defines as functions, named as
# the source calls them; then fails listing each that
# tests/platforms/macos-declared-functions.txt does not hold. Meant for the
# portable build (configure --with-os=portable), where `make check` runs it
# with BRIDGE_BUILDDIR and BRIDGE_SRCDIR set; a Linux build calls Linux's
# own functions on purpose (mallopt) and fails it. NM may name another nm.

set -u

builddir=${BRIDGE_BUILDDIR:-.}
srcdir=${BRIDGE_SRCDIR:-.}
NM=${NM:-nm}
CC=${CC:-cc}
declared=$srcdir/tests/platforms/macos-declared-functions.txt
objects="$builddir/host/libbridge.a $builddir/host/main.o"
for f in $objects "$declared"; do
	if [ ! -f "$f" ]; then
		echo "apple-symbols.sh: $f is missing: run make first" >&2
		exit 99
	fi
done
libc=$("$CC" -print-file-name=libc.so.6)
if [ ! -f "$libc" ]; then
	echo "apple-symbols.sh: cannot find the C library ($CC -print-file-name=libc.so.6 says $libc); this check reads glibc's" >&2
	exit 99
fi

work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT

# What the objects use, and what they define themselves.
"$NM" -u $objects 2>/dev/null | awk 'NF == 2 && $1 == "U" { print $2 }' |
    sort -u >"$work/used"
"$NM" -g --defined-only $objects 2>/dev/null | awk 'NF == 3 { print $3 }' |
    sort -u >"$work/defined"
comm -23 "$work/used" "$work/defined" >"$work/external"
# The C library's functions (T, W, and i: indirect functions), unversioned.
"$NM" -D --defined-only "$libc" | awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' |
    sort -u >"$work/libc"
comm -12 "$work/external" "$work/libc" >"$work/called"
if [ ! -s "$work/called" ]; then
	echo "apple-symbols.sh: found no C library function in $objects; is nm working?" >&2
	exit 99
fi

# glibc's names for what the source wrote: the ctype macros and errno read
# glibc's tables and errno's address (macOS has its own, declared: __error,
# ___runetype), C99's scanf family and fortified calls carry a prefix or a
# suffix, and start-up and stack protection come from the compiler.
sed -e '/^__ctype_\(b\|tolower\|toupper\)_loc$/d' \
    -e '/^__errno_location$/d' \
    -e '/^__\(libc_start_main\|cxa_finalize\|cxa_atexit\|stack_chk_fail\)$/d' \
    -e 's/^__isoc\(99\|23\)_//' \
    -e 's/^__\(.*\)_chk$/\1/' "$work/called" | sort -u >"$work/names"

# The list holds what Libc and xnu declare; malloc's family is declared by
# libmalloc, another repository (the list's header says so).
{ grep -v '^#' "$declared"; printf '%s\n' realloc reallocf posix_memalign aligned_alloc; } |
    sort -u >"$work/apple"
comm -23 "$work/names" "$work/apple" >"$work/missing"
called=$(wc -l <"$work/names")
if [ -s "$work/missing" ]; then
	echo "FAIL: the host calls C library functions Apple's headers do not declare (it would not compile on macOS):" >&2
	sed 's/^/    /' "$work/missing" >&2
	echo "Move the call behind host/os.h (os-linux.c may keep it) or add a compat/ replacement." >&2
	exit 1
fi
echo "apple-symbols.sh: all $called C library functions the host calls are declared by Apple's headers"
exit 0
