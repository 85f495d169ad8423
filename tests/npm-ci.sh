# Sourced by the test scripts that need packages from the npm registry
# (e2e.sh, extension-unit.sh); they set NPM first.

# Installs the packages DIR/package-lock.json pins into DIR/node_modules,
# unless they are there from the same lock already. WHO names the script
# in messages. On failure prints npm's log and what to do, and returns 1.
npm_ci_once() {
	dir=$1
	who=$2
	if [ -d "$dir/node_modules" ] && cmp -s "$dir/package-lock.json" "$dir/.installed-lock.json"; then
		return 0
	fi
	if [ -z "$NPM" ]; then
		echo "$who: npm was not found when configure ran; install npm (apt-get install npm) and run configure again" >&2
		return 1
	fi
	rm -f "$dir/.installed-lock.json"
	if ! (cd "$dir" && "$NPM" ci --no-audit --no-fund --prefer-offline --loglevel=error >npm-ci.log 2>&1); then
		cat "$dir/npm-ci.log" >&2
		echo "$who: npm ci failed in $dir (see above); it needs the npm registry" >&2
		return 1
	fi
	cp "$dir/package-lock.json" "$dir/.installed-lock.json"
}
