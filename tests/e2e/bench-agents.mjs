// Measures the agents' own overhead per step on the fixture shop task:
// the task's time minus the time the (scripted, instant) model took,
// divided by the navigator steps. Run by `make bench` (through
// tests/e2e.sh with E2E_SCRIPT), not by make check; prints a table.

import { startBridge } from './harness.mjs';
import { SHOP_ORDER_STEPS, configureAgents, startModelServer } from './agents-harness.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

// The median of a list of numbers.
function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

const b = await startBridge();
const rows = [];
try {
	for (let i = 0; i < RUNS; i++) {
		const model = await startModelServer({ steps: SHOP_ORDER_STEPS });
		try {
			await configureAgents(b, { baseUrl: `${model.url}/v1` });
			const started = Date.now();
			const result = await b.client.callTool({ name: 'run_task', arguments: { task: 'Order a blue mug for Ada Lovelace in Canada.', start_url: b.page('shop/index.html') } },
			    undefined, { timeout: 120000 });
			const total = Date.now() - started;
			const data = result.structuredContent;
			if (data?.stop_reason !== 'done')
				throw new Error(`the task did not finish: ${result.content?.[0]?.text}`);
			const log = await model.log();
			const modelMs = log.reduce((sum, entry) => sum + (entry.done - entry.time), 0);
			rows.push({ total, modelMs, steps: data.steps_taken, calls: log.length, overhead: (total - modelMs) / data.steps_taken });
		} finally {
			await model.close();
		}
	}
} finally {
	await b.close();
}
console.log(`Agents on the fixture shop order (${RUNS} runs, scripted model; medians):\n`);
console.log('| task ms | model ms | navigator steps | model calls | overhead per step ms |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
console.log(`| ${median(rows.map(r => r.total))} | ${median(rows.map(r => r.modelMs))} | ${median(rows.map(r => r.steps))} | ` +
    `${median(rows.map(r => r.calls))} | ${Math.round(median(rows.map(r => r.overhead)))} |`);
