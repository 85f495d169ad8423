// The tests' time margins (../timing.mjs) grow with the machine's load:
// with every core busy, a test process gets only its share of them.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';

import { SLOW, scaled, timingLoadFactor } from '../timing.mjs';
import { eventually } from './mcp-client.mjs';

describe('time margins', () => {
	it('are whole milliseconds, never below the margin asked for or the valgrind factor', () => {
		for (const ms of [1, 20, 333, 10000]) {
			assert.ok(Number.isInteger(scaled(ms)), `scaled(${ms}) = ${scaled(ms)}`);
			assert.ok(scaled(ms) >= ms * SLOW, `scaled(${ms}) = ${scaled(ms)}`);
		}
	});

	it('grow when every core is busy with other work', async () => {
		const busy = [];
		try {
			// Two busy processes per core: each test process gets half a core at most.
			for (let i = 0; i < 2 * availableParallelism(); i++)
				busy.push(spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
			const factor = await eventually(() => { const f = timingLoadFactor(); return f >= 2 ? f : false; },
			    'the load factor to reach 2 with two busy processes per core');
			assert.ok(factor <= 10, `the factor ${factor} is capped`);
		} finally {
			for (const child of busy)
				child.kill('SIGKILL');
		}
	});
});
