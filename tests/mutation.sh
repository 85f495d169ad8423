#!/bin/sh
# `make mutation`: Stryker (pinned in tests/mutation/package.json) mutates
# the extension's modules that guard a boundary, one module at a time, and
# runs only that module's unit tests against each mutant (Stryker's command
# runner, each test file run by node, two mutants at a time). Prints each
# module's score and fails when one is under 85 % (docs/mutation.md lists
# the survivors). MUTATION_MODULES=url-policy,refs picks modules by file
# name; MUTATION_INCREMENTAL=1 retests only what changed since the last
# run. The tests of the agents' tools read the catalogue the built host
# (BRIDGE_BIN) sends, as under tests/extension-unit.sh. Not part of make
# check.

set -u

srcdir=${BRIDGE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${BRIDGE_BUILDDIR:-$(pwd)}
BRIDGE_BIN=${BRIDGE_BIN:-$builddir/browser-bridge}
NODE=${NODE:-}
NPM=${NPM:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null) || NODE=
[ -n "$NPM" ] || NPM=$(command -v npm 2>/dev/null) || NPM=
if [ -z "$NODE" ]; then
	echo "mutation.sh: Node.js was not found when configure ran; install Node 20 or later (apt-get install nodejs) and run configure again" >&2
	exit 1
fi

# module (under extension/src), then the unit tests that hold it
MODULES='
page-state/refs refs state
agents/settings agents-settings
tab-queue small
agents/redact agents-prompts
agents/domains agents-fence
url-policy url-policy small
json-schema json-schema
'

if [ ! -x "$BRIDGE_BIN" ]; then
	echo "mutation.sh: $BRIDGE_BIN is missing: run make first (the tests read the catalogue the host sends)" >&2
	exit 1
fi

dest=$builddir/tests/mutation-run
mkdir -p "$dest" || exit 1
BRIDGE_WELCOME_CATALOGUE=$dest/welcome-catalogue.json
export BRIDGE_WELCOME_CATALOGUE
BRIDGE_BIN=$BRIDGE_BIN "$NODE" "$srcdir/tests/welcome-catalogue.mjs" "$BRIDGE_WELCOME_CATALOGUE" || exit 1
cp "$srcdir/tests/mutation/package.json" "$srcdir/tests/mutation/package-lock.json" "$dest/" &&
chmod u+w "$dest/package.json" "$dest/package-lock.json" || exit 1
. "$srcdir/tests/npm-ci.sh"
npm_ci_once "$dest" mutation.sh || exit 1

# Stryker copies its project into a sandbox per run; the project is a copy
# of the extension and the shared schema cases, so the source tree stays
# untouched (the reports and the incremental file live beside it).
project=$dest/project
rm -rf "$project/extension" "$project/tests" &&
mkdir -p "$project/tests" &&
cp -R "$srcdir/extension" "$project/" &&
rm -rf "$project/extension/test/node_modules" &&
cp "$srcdir/tests/schema-cases.json" "$project/tests/" || exit 1

failed=0
while read -r module tests; do
	[ -n "$module" ] || continue
	name=$(basename "$module")
	case ",${MUTATION_MODULES:-$name}," in *",$name,"*) ;; *) continue ;; esac
	# each file on its own (no `node --test` runner process): the first
	# failing file kills the mutant
	command="cd extension"
	for t in $tests; do command="$command && '$NODE' test/$t.test.mjs"; done
	"$NODE" -e '
const [module, name, command, incremental] = process.argv.slice(1);
process.stdout.write(JSON.stringify({
	mutate: [`extension/src/${module}.js`],
	testRunner: "command",
	commandRunner: { command },
	concurrency: 2,
	reporters: ["clear-text", "json"],
	jsonReporter: { fileName: `reports/${name}.json` },
	incremental: incremental === "1",
	incrementalFile: `reports/${name}-incremental.json`,
	thresholds: { high: 90, low: 85, break: 85 },
	tempDirName: ".stryker-tmp",
	cleanTempDir: "always",
}, null, 1));
' "$module" "$name" "$command" "${MUTATION_INCREMENTAL:-0}" >"$project/stryker.$name.json" || exit 1
	start=$(date +%s)
	(cd "$project" && "$NODE" "$dest/node_modules/@stryker-mutator/core/bin/stryker.js" run "stryker.$name.json") >"$project/$name.log" 2>&1
	status=$?
	score=$("$NODE" -e '
const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const counts = {};
for (const file of Object.values(report.files))
	for (const m of file.mutants) counts[m.status] = (counts[m.status] ?? 0) + 1;
const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
const valid = detected + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
console.log(`${(100 * detected / valid).toFixed(2)} % (${detected} of ${valid} mutants killed)`);
' "$project/reports/$name.json" 2>/dev/null) || score="no report (see $project/$name.log)"
	echo "mutation: $module.js: $score in $(( $(date +%s) - start )) s"
	if [ $status -ne 0 ]; then
		grep -A3 '^\[Survived\]' "$project/$name.log" >&2
		echo "mutation: $module.js is under 85 % or Stryker failed: the survivors are above, the whole run in $project/$name.log" >&2
		failed=1
	fi
done <<MODULES
$MODULES
MODULES
exit $failed
