// Time margins for the Node tests (integration, end-to-end and the
// extension's unit tests), scaled by how slow this run is: a host under
// valgrind (BRIDGE_SLOW=1) is ten times slower, one built with the
// sanitizers (BRIDGE_SANITIZERS set) about twice, and a machine whose
// cores are busy with other work gives each test process only its share.
// A margin is measured once per test file, so a timeout given to a host
// and the bound a test checks against it agree.

import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

// How much slower the host is under valgrind or the sanitizers.
export const SLOW = process.env.BRIDGE_SLOW === '1' ? 10 : (process.env.BRIDGE_SANITIZERS ?? '') !== '' ? 2 : 1;

// The most a busy machine scales a margin by: past it, the run is too
// starved for any margin to mean something, and a hang should still end.
const LOAD_FACTOR_MAX = 10;

// Returns how many processes are ready to run right now besides this one
// (procs_running in /proc/stat, Linux); 0 where that cannot be read.
function timingRunnable() {
	try {
		const match = /^procs_running (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
		return match === null ? 0 : Number(match[1]) - 1;
	} catch {
		return 0;
	}
}

// Returns how many times slower than on an idle machine a test process
// runs now: the demand for CPUs (the 1-minute load average, or the
// processes ready to run this instant if more) over the CPUs there are;
// 1 on a machine with cores to spare, at most LOAD_FACTOR_MAX.
export function timingLoadFactor() {
	const demand = Math.max(loadavg()[0], timingRunnable());
	return Math.min(LOAD_FACTOR_MAX, Math.max(1, demand / availableParallelism()));
}

// The load this test file started under.
const LOAD = timingLoadFactor();

// Scales a time margin (ms) for this run: valgrind or the sanitizers, and
// the machine's load.
export function scaled(ms) {
	return Math.ceil(ms * SLOW * LOAD);
}
