// A reporter for `node --test` (--test-reporter=FILE beside the spec
// reporter) that writes one line per test file: its wall time in seconds
// (from its process's start to its end, what a run waits for it), a tab
// and its path as the runner was given it. ./test.sh reads these lines for
// its table of the slowest test files. The runner ends each file with a
// test:complete event named by the file's absolute path (Node 20.10 and
// later).

import { relative } from 'node:path';

// Yields a line for each file the runner finished.
export default async function* fileTimes(events) {
	for await (const { type, data } of events) {
		if (type === 'test:complete' && data.nesting === 0 && data.file !== undefined && data.name === data.file)
			yield `${(data.details.duration_ms / 1000).toFixed(1)}\t${relative(process.cwd(), data.file)}\n`;
	}
}
