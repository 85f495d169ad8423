// What the agents' end-to-end tests add to the harness: the scripted model
// server (tests/agents/model-server.mjs) started on a scenario, the
// extension's options page filled in through its labels as a person would,
// and code run in the extension's service worker.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

import { EXTENSION_ID, until } from './harness.mjs';

// The fixture shop's order (site/shop/), as a scenario's steps.
export const SHOP_ORDER_STEPS = [
	{ do: 'click', label: 'Blue mug' },
	{ do: 'click', label: 'Order this mug' },
	{ do: 'type', label: 'Full name', text: 'Ada Lovelace' },
	{ do: 'select', label: 'Country', option: 'Canada' },
	{ do: 'click', label: 'Place order' },
	{ do: 'answer', pattern: 'Order #[0-9]+' },
];

const MODEL_SERVER = join(dirname(fileURLToPath(import.meta.url)), '..', 'agents', 'model-server.mjs');

// Starts the model server on a scenario; resolves to { url, log(),
// release(n), close() }.
export async function startModelServer(scenario) {
	const dir = mkdtempSync(join(tmpdir(), 'bb-model-'));
	const file = join(dir, 'scenario.json');
	writeFileSync(file, JSON.stringify(scenario));
	const child = spawn(process.execPath, [MODEL_SERVER, '--scenario', file, '--port', '0'],
	    { stdio: ['ignore', 'pipe', 'inherit'] });
	const lines = createInterface({ input: child.stdout });
	const url = await new Promise((resolve, reject) => {
		lines.once('line', line => {
			const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
			if (match)
				resolve(match[1]);
			else
				reject(new Error(`the model server said "${line}" instead of where it listens`));
		});
		child.once('exit', code => reject(new Error(`the model server exited (${code}) before listening`)));
	});
	return {
		url,
		// The requests it answered: [{n, time, api, role, status}].
		async log() {
			const response = await fetch(`${url}/log`);
			return response.json();
		},
		// Lets request n, held by a hold fault, answer (now or when it comes).
		async release(n) {
			const response = await fetch(`${url}/release?request=${n}`, { method: 'POST' });
			if (!response.ok)
				throw new Error(`the model server did not release request ${n}: ${response.status}`);
		},
		async close() {
			if (child.exitCode === null) {
				child.kill();
				await new Promise(resolve => child.once('exit', resolve));
			}
		},
	};
}

// Attaches to the first target of the given types whose URL passes test;
// resolves to its session id.
async function attach(cdp, test, types) {
	const target = await until(async () => (await cdp.targets()).find(t => types.includes(t.type) && test(t.url)),
	    { ms: 10000, what: `a ${types.join('/')} target` });
	const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
	return sessionId;
}

// Evaluates an expression (awaiting a promise) in a CDP session.
async function evaluateIn(cdp, sessionId, expression) {
	const result = await cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
	if (result.exceptionDetails)
		throw new Error(`evaluate ${expression.slice(0, 80)}: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`);
	return result.result.value;
}

// Runs an expression in the extension's service worker.
export async function inExtension(bridge, expression) {
	bridge.workerSession ??= await attach(bridge.cdp, url => url === `chrome-extension://${EXTENSION_ID}/background.js`, ['service_worker']);
	return evaluateIn(bridge.cdp, bridge.workerSession, expression);
}

// Opens the options page in a tab of its own; resolves to a page object
// that fills fields by their visible labels and presses buttons by name.
export async function openOptions(bridge) {
	const url = `chrome-extension://${EXTENSION_ID}/options/options.html`;
	const { targetId } = await bridge.cdp.send('Target.createTarget', { url });
	const { sessionId } = await bridge.cdp.send('Target.attachToTarget', { targetId, flatten: true });
	const run = expression => evaluateIn(bridge.cdp, sessionId, expression);
	await until(() => run(`document.readyState === 'complete' && document.getElementById('agents').dataset.ready === 'true'`),
	    { what: 'the options page to load and show the saved settings' });
	// Reads back what a person sees in a field, by label (the first one, or
	// the one inside the element a selector names).
	const control = (label, within = 'body') => `(() => {
		const label = [...document.querySelector(${JSON.stringify(within)}).querySelectorAll('label')].find(l => l.offsetParent !== null && l.textContent.trim().startsWith(${JSON.stringify(label)}));
		if (!label || !label.control) throw new Error('no visible field labelled ' + ${JSON.stringify(label)});
		return label.control;
	})()`;
	return {
		// Types into (or chooses in, or ticks) the field a label names.
		async fill(label, value, within = 'body') {
			await run(`(() => {
				const field = ${control(label, within)};
				field.focus();
				if (field.type === 'checkbox') field.checked = ${JSON.stringify(value)} === true;
				else field.value = ${JSON.stringify(String(value))};
				field.dispatchEvent(new Event('input', { bubbles: true }));
				field.dispatchEvent(new Event('change', { bubbles: true }));
			})()`);
		},
		value: (label, within = 'body') => run(`${control(label, within)}.value`),
		// Opens the part of the page a summary names.
		expand: summary => run(`[...document.querySelectorAll('summary')].find(s => s.textContent.trim() === ${JSON.stringify(summary)}).parentElement.open = true`),
		// Presses a button by its text; resolves to the status line once it
		// says how things went (not "Testing…").
		async press(name) {
			await run(`document.getElementById('agents-status').textContent = ''`);
			await run(`[...document.querySelectorAll('button')].find(b => b.textContent.trim() === ${JSON.stringify(name)}).click()`);
			return until(async () => {
				const status = await run(`document.getElementById('agents-status').textContent`);
				return status !== '' && !status.endsWith('…') && status;
			}, { ms: 15000, what: `the status after ${name}` });
		},
		close: () => bridge.closeTarget(targetId),
	};
}

// Sets up the agents as a person would on the options page (keepTabs: keep
// the tabs a task opens when it ends).
export async function configureAgents(bridge, { provider = 'OpenAI-compatible', baseUrl, apiKey = '', model = 'scripted', domains = '',
	keepTabs = false } = {}) {
	const page = await openOptions(bridge);
	try {
		await page.fill('Provider', { 'OpenAI-compatible': 'openai', Anthropic: 'anthropic', 'Google Gemini': 'gemini' }[provider]);
		await page.fill('Base URL', baseUrl);
		await page.fill('API key', apiKey);
		await page.fill('Model', model);
		await page.fill('Allowed domains', domains);
		await page.fill('Keep the tabs a task opens', keepTabs);
		const status = await page.press('Save');
		if (!status.startsWith('Saved.'))
			throw new Error(`the options page did not save: ${status}`);
	} finally {
		await page.close();
	}
}
