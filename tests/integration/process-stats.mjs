// Another process's resident memory and CPU time, for tests that bound them.
// Linux's /proc has both exactly and cheaply (a test samples memory every
// 20 ms); where there is no /proc (macOS, the BSDs) ps(1) says them, its
// CPU time to the hundredth of a second there.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

// Whether this system has /proc (every process has an entry there).
const HAVE_PROC = existsSync(`/proc/${process.pid}/stat`);

// One field of ps -o for pid, as printed (leading spaces removed).
function psField(pid, field) {
	return execFileSync('ps', ['-o', `${field}=`, '-p', String(pid)], { encoding: 'utf8' }).trim();
}

// ps's CPU time ([[dd-]hh:]mm:ss[.cc]) in ms.
export function psTimeMs(text) {
	const [days, clock] = text.includes('-') ? text.split('-') : ['0', text];
	const parts = clock.split(':').map(Number);
	const seconds = parts.reduce((total, part) => total * 60 + part, 0);
	return Math.round((Number(days) * 86400 + seconds) * 1000);
}

// The process's resident memory, in bytes.
export function residentBytes(pid) {
	if (!HAVE_PROC)
		return Number(psField(pid, 'rss')) * 1024;
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

// The CPU time the process has used, in ms (user + system).
export function cpuMs(pid) {
	if (!HAVE_PROC)
		return psTimeMs(psField(pid, 'time'));
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 1000 / 100;	// clock ticks of 1/100 s
}
