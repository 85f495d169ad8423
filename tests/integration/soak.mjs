// The soak benchmark (`make soak`, not part of the test suite): the host
// with the fake extension under SOAK_MINUTES (default 30) of mixed calls
// from SOAK_CLIENTS (default 16) MCP clients whose sessions come and go,
// over Streamable HTTP and legacy SSE, some calls cancelled, some failing
// in the extension, some slow. Every minute it prints a row: calls served,
// errors by kind, sessions started, the host's resident memory and pending
// calls. At the end it says whether memory grew after the warm-up minute.
// Exit status 1 when a call was lost (neither answered nor cancelled) or
// memory grew by more than SOAK_GROWTH_MIB (default 4).

import { readFileSync } from 'node:fs';

import { ExtensionError, startHost } from './fake-extension.mjs';
import { close, connect } from './mcp-client.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 16);
const GROWTH_MIB = Number(process.env.SOAK_GROWTH_MIB ?? 4);
const MiB = 1024 * 1024;

// Resolves after ms milliseconds, or rejects when signal aborts.
function sleep(ms, signal) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(resolve, ms);
		signal?.addEventListener('abort', () => {
			clearTimeout(timer);
			reject(signal.reason);
		}, { once: true });
	});
}

// The host's resident memory in MiB.
function residentMiB(pid) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) / 1024;
}

const page = 'word '.repeat(10000);	// a 50 kB page
const handlers = {
	navigate_to: async (params, ctx) => {
		await sleep(5 + Math.random() * 45, ctx.signal);
		return { content: [{ type: 'text', text: `navigated to ${params.url}` }] };
	},
	get_page_content: () => ({ content: [{ type: 'text', text: page }] }),
	click_element: params => {
		if (Math.random() < 0.2)
			throw new ExtensionError('STALE_REF', `Element ${params.ref} is no longer on the page.`);
		return { content: [{ type: 'text', text: `clicked ${params.ref}` }] };
	},
	wait_for: async (params, ctx) => {
		await sleep(2000, ctx.signal);	// cancelled by the client first
		return { content: [{ type: 'text', text: 'waited' }] };
	},
};

// One call a client makes, chosen at random.
function nextCall(i) {
	const choice = Math.random();
	if (choice < 0.3)
		return { name: 'navigate_to', arguments: { url: `https://example.com/${i}` } };
	if (choice < 0.5)
		return { name: 'get_page_content', arguments: {} };
	if (choice < 0.8)
		return { name: 'click_element', arguments: { ref: `e${i % 50}` } };
	if (choice < 0.9)
		return { name: 'wait_for', arguments: { text: 'never', timeout_ms: 5000 }, cancelAfterMs: 20 };
	return { name: 'hover_element', arguments: { ref: `e${i}` } };
}

const tally = { served: 0, cancelled: 0, sessions: 0, errors: new Map(), lost: 0 };

// Counts one error under its kind: the tool's error code, or the exception.
function countError(kind) {
	tally.errors.set(kind, (tally.errors.get(kind) ?? 0) + 1);
}

// One client: sessions of 20 to 100 calls, one after another, until the deadline.
async function client(index, host, deadline) {
	let i = 0;
	while (Date.now() < deadline) {
		const mcp = await connect(host, { transport: index % 4 === 3 ? 'sse' : 'http', name: `soak-${index}` });
		tally.sessions++;
		const calls = 20 + Math.floor(Math.random() * 80);
		for (let n = 0; n < calls && Date.now() < deadline; n++, i++) {
			const { cancelAfterMs, ...call } = nextCall(i);
			const controller = new AbortController();
			const timer = cancelAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), cancelAfterMs);
			try {
				const result = await mcp.callTool(call, undefined, { signal: controller.signal, timeout: 30000 });
				if (result.isError)
					countError(/^([A-Z_]+):/.exec(result.content?.[0]?.text ?? '')?.[1] ?? 'tool error');
				else
					tally.served++;
			} catch (error) {
				if (controller.signal.aborted)
					tally.cancelled++;
				else {
					countError(`exception: ${error.message.slice(0, 60)}`);
					tally.lost++;
				}
			} finally {
				clearTimeout(timer);
			}
		}
		await close(mcp);
	}
}

const host = await startHost({ handlers });
const deadline = Date.now() + MINUTES * 60000;
const rows = [];
const started = Date.now();
console.log(`soak: ${CLIENTS} clients for ${MINUTES} minutes against host pid ${host.pid}`);
console.log('| minute | calls served | cancelled | errors by kind | sessions started | RSS (MiB) | pending |');
console.log('|---:|---:|---:|---|---:|---:|---:|');
const sampler = setInterval(async () => {
	const status = (await host.request('status')).result;
	const row = {
		minute: Math.round((Date.now() - started) / 60000),
		served: tally.served,
		cancelled: tally.cancelled,
		errors: [...tally.errors].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none',
		sessions: tally.sessions,
		rss: residentMiB(host.pid),
		pending: status.pending_calls,
	};
	rows.push(row);
	console.log(`| ${row.minute} | ${row.served} | ${row.cancelled} | ${row.errors} | ${row.sessions} | ${row.rss.toFixed(1)} | ${row.pending} |`);
}, 60000);
await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index, host, deadline)));
clearInterval(sampler);
await host.stop();

const warm = rows.find(row => row.minute >= 2) ?? rows[0];
const last = rows.at(-1);
const growth = warm && last ? last.rss - warm.rss : 0;
console.log(`soak: ${tally.served} calls served, ${tally.cancelled} cancelled, ${tally.sessions} sessions, ` +
    `${tally.lost} lost; RSS ${warm?.rss.toFixed(1)} MiB after warm-up, ${last?.rss.toFixed(1)} MiB at the end ` +
    `(${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB)`);
process.exit(tally.lost > 0 || growth > GROWTH_MIB ? 1 : 0);
