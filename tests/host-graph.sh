#!/bin/sh
# Fails when the host's files call each other in a loop. The graph is read
# from the objects of host/libbridge.a with nm: host/a.c -> host/b.c when
# a.o uses a symbol b.o defines. docs/architecture.md draws it; an edge
# that would close a loop must be a callback wired in bridge.c instead.
# `make check` runs it with BRIDGE_BUILDDIR set; NM may name another nm.

set -u

builddir=${BRIDGE_BUILDDIR:-.}
lib=$builddir/host/libbridge.a
NM=${NM:-nm}
if [ ! -f "$lib" ]; then
	echo "host-graph.sh: $lib is missing: run make first" >&2
	exit 99
fi
if ! command -v "$NM" >/dev/null 2>&1; then
	echo "host-graph.sh: $NM was not found: install binutils" >&2
	exit 99
fi

# "member.o U symbol" and "member.o D symbol" lines, one per symbol.
symbols=$(mktemp) || exit 99
trap 'rm -f "$symbols"' EXIT
"$NM" -A -g "$lib" 2>/dev/null | awk '
	# "lib.a:member.o:address type name" (no address when undefined)
	NF == 3 {
		m = split($1, part, ":")
		member = part[m - 1]
		sub(/\.o$/, ".c", member)
		sub(/^libbridge_a-/, "", member)
		print member, ($2 == "U" || $2 == "w" || $2 == "v" ? "U" : "D"), $3
	}' >"$symbols" || exit 99
if [ ! -s "$symbols" ]; then
	echo "host-graph.sh: $NM read no symbols from $lib" >&2
	exit 99
fi

awk '
	$2 == "D" { owner[$3] = $1; files[$1] = 1 }
	$2 == "U" { uses[++n] = $1 " " $3; files[$1] = 1 }
	END {
		for (i = 1; i <= n; i++) {
			split(uses[i], u, " ")
			to = owner[u[2]]
			if (to == "" || to == u[1] || (u[1] SUBSEP to) in edge)
				continue
			edge[u[1], to] = 1
			out[u[1]] = out[u[1]] " " to
		}
		for (f in files)
			if (!(f in color))
				visit(f, 0)
		if (loops > 0)
			exit 1
		for (e in edge)
			edges++
		for (f in files)
			count++
		printf "host-graph.sh: %d host files, %d edges, no loop\n", \
		    count, edges
	}
	# Depth-first search; a grey file met again closes a loop.
	function visit(f, depth,    next_files, k, m, i, cycle) {
		color[f] = 1
		path[depth] = f
		m = split(out[f], next_files, " ")
		for (k = 1; k <= m; k++) {
			if (!(next_files[k] in color))
				visit(next_files[k], depth + 1)
			else if (color[next_files[k]] == 1) {
				for (i = depth; path[i] != next_files[k]; i--)
					;
				cycle = ""
				for (; i <= depth; i++)
					cycle = cycle path[i] " -> "
				printf "host-graph.sh: the host files call each " \
				    "other in a loop: %s%s; make one edge a " \
				    "callback (docs/architecture.md)\n", \
				    cycle, next_files[k] > "/dev/stderr"
				loops++
			}
		}
		color[f] = 2
	}' "$symbols"
