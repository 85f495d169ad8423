// The agents' benchmark (`make bench-agents`, and the end of `make bench`;
// not make check): fixed tasks run by run_task with the scripted model
// (tests/agents/model-server.mjs, which answers at once), each beside the
// same actions called directly over MCP by a script (the floor). Prints,
// per task, the times (wall, model, the start: run_task until the first
// model request beside the floor's navigate_to, browser side per step, the
// floor per step and the ratio) and, per role, the model calls, characters and
// tokens in and out, the tokens a provider's prompt cache would serve, and
// how much of each request repeats the beginning of that role's previous
// one. Tokens are the model server's estimate, characters over 4.
// BENCH_RUNS=N sets the runs per task (default 5), after one warm-up run of
// each kind that is not counted; each agents run is followed by a floor
// run, so load that comes and goes weighs on both alike. Times are medians,
// the ratio is the median of each run's ratio to the floor run after it
// (with the lowest and highest), and the best ratio that of the fastest
// runs (the least disturbed by other work). Where the time goes comes from
// the extension's trace hook (globalThis.agentsTrace, set in the service
// worker for each agents run) and the model server's log, beside the
// floor's own calls; each model call is split span by span with the
// service worker's Resource Timing of its fetch, which also gives the
// model's time on the wire (the request's first byte sent to the response's
// last byte received) for the ratio beside the server's own time. Then
// each task's recipe (the one its last agents run left) is replayed with
// run_recipe: the model requests meanwhile (counted at the scripted
// model's server, which the agents stay pointed at), the replay's time
// beside a floor run's, and replays on the drifted pages (localStorage
// "drift": "moved", then "renamed"; docs/recipes.md).

import { startBridge } from './harness.mjs';
import { SHOP_ORDER_STEPS, configureAgents, inExtension, startModelServer } from './agents-harness.mjs';
import { actionFor, parseState } from '../agents/model-server.mjs';

const RUNS = Number(process.env.BENCH_RUNS || 5);

// The fixed tasks: the words run_task gets, where it starts, and the
// scenario the scripted model follows (the same steps the floor calls);
// renamed: the step a heal asks the model for on the "renamed" pages,
// whose control the task uses has another name there.
const TASKS = [
	{ name: 'shop order', start: 'shop/index.html', steps: SHOP_ORDER_STEPS, renamed: { do: 'click', label: 'Submit order' },
	    task: 'Order one blue mug for Ada Lovelace, shipping to Canada, and report the order number.' },
	{ name: 'todo list', start: 'todos.html', renamed: { do: 'type', label: 'Add a task', text: 'buy milk' },
	    task: 'Add "buy milk" to the todo list, tick "walk the dog" as done, and report how many items are left.',
	    steps: [
		{ do: 'type', label: 'What needs to be done', text: 'buy milk' },
		{ do: 'press', keys: '{Enter}' },
		{ do: 'click', label: 'walk the dog' },
		{ do: 'answer', pattern: '[0-9]+ items? left' },
	    ] },
	{ name: 'multi-page form', start: 'apply/index.html', renamed: { do: 'click', label: 'Submit application' },
	    task: 'Apply for a library card for Ada Lovelace (ada@example.org, 12 Analytical Row, London, Harbour branch) and report the reference.',
	    steps: [
		{ do: 'type', label: 'Full name', text: 'Ada Lovelace' },
		{ do: 'type', label: 'Email', text: 'ada@example.org' },
		{ do: 'click', label: 'Next: address' },
		{ do: 'type', label: 'Street', text: '12 Analytical Row' },
		{ do: 'type', label: 'City', text: 'London' },
		{ do: 'select', label: 'Branch', option: 'Harbour' },
		{ do: 'click', label: 'Next: review' },
		{ do: 'click', label: 'I accept' },
		{ do: 'click', label: 'Send application' },
		{ do: 'answer', pattern: 'LC-[0-9]+' },
	    ] },
];

// The median of a list of numbers.
function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

// Where a run's time goes, in ms: each phase's total (a Map, in the order
// the phases first came).
function addPhase(phases, phase, ms) {
	phases.set(phase, (phases.get(phase) ?? 0) + ms);
}

// The phases of an agents run, from the extension's trace hook (its spans)
// and the model server's log (each request's arrival and answer, in the
// order of the model calls): the server's own time, the rest of each model
// call (the request built, sent and read back), the task's start, its
// actions, reads and end, and what no span covers (the run_task call
// itself, prompts, events). timings: each model request's Resource Timing
// in the service worker (absolute ms), in the same order.
function agentPhases(spans, log, timings, wall) {
	const phases = new Map();
	let covered = 0;
	let call = 0;
	for (const span of spans) {
		const ms = span.end - span.start;
		/* A phase that runs alongside the others (the tab group) is shown, not counted as waited for. */
		if (!span.phase.startsWith('alongside: '))
			covered += ms;
		if (span.phase.startsWith('model ')) {
			const entry = log[call];
			const fetched = timings[call++];
			const server = entry.done - entry.time;
			addPhase(phases, 'model server', server);
			addPhase(phases, 'model call, less the server', ms - server);
			/* The same call span by span, from the service worker's Resource Timing of the fetch. */
			if (fetched !== undefined) {
				addPhase(phases, 'model call: before the fetch', fetched.start - span.start);
				addPhase(phases, 'model call: fetch to request sent', fetched.requestStart - fetched.start);
				addPhase(phases, 'model call: request sent to first byte, less the server', fetched.responseStart - fetched.requestStart - server);
				addPhase(phases, 'model call: first to last byte', fetched.responseEnd - fetched.responseStart);
				addPhase(phases, 'model call: after the last byte', span.end - fetched.responseEnd);
			}
		} else
			addPhase(phases, span.phase.replace(/^act [a-z_]+$/, 'actions'), ms);
	}
	addPhase(phases, 'not in a span', wall - covered);
	return phases;
}

// Runs a task with the agents; resolves to its times, the model's log and
// the phases of its time.
async function agentsRun(b, spec) {
	const model = await startModelServer({ steps: spec.steps, usage: 'estimate' });
	try {
		await configureAgents(b, { baseUrl: `${model.url}/v1` });
		await inExtension(b, 'globalThis.agentsTrace = []');
		const started = Date.now();
		const result = await b.client.callTool({ name: 'run_task', arguments: { task: spec.task, start_url: b.page(spec.start) } },
		    undefined, { timeout: 120000 });
		const wall = Date.now() - started;
		const data = result.structuredContent;
		if (data?.stop_reason !== 'done')
			throw new Error(`${spec.name}: the task did not finish: ${result.content?.[0]?.text}`);
		const spans = await inExtension(b, 'globalThis.agentsTrace.splice(0)');
		const timings = await inExtension(b, `(() => {
			const at = ms => performance.timeOrigin + ms;
			const entries = performance.getEntriesByType('resource').filter(e => e.name.startsWith(${JSON.stringify(model.url)}))
			    .map(e => ({ start: at(e.startTime), requestStart: at(e.requestStart), responseStart: at(e.responseStart), responseEnd: at(e.responseEnd),
				connect: e.connectEnd - e.connectStart }));
			performance.clearResourceTimings();
			return entries;
		})()`);
		await inExtension(b, 'delete globalThis.agentsTrace');
		await b.ok('manage_tabs', { action: 'close', tab_id: data.tab_id });
		const log = await model.log();
		return { recipeId: data.recipe_id, wall, start: log[0].time - started, modelMs: log.reduce((sum, entry) => sum + (entry.done - entry.time), 0),
		    steps: data.steps_taken, usage: data.usage, log, timings, phases: agentPhases(spans, log, timings, wall),
		    wireMs: timings.reduce((sum, t) => sum + t.responseEnd - t.requestStart, 0) };
	} finally {
		await model.close();
	}
}

// The floor: the same actions called over MCP by a script that reads the
// state before each (to find its ref by label) and the page at the end.
async function floorRun(b, spec) {
	const phases = new Map();
	const timed = async (phase, tool, args) => {
		const from = Date.now();
		const result = await b.ok(tool, args);
		addPhase(phases, phase, Date.now() - from);
		return result;
	};
	const started = Date.now();
	const opened = await timed('start: start_url', 'navigate_to', { url: b.page(spec.start), new_tab: true });
	const start = Date.now() - started;
	const tabId = opened.data.tab_id;
	for (const step of spec.steps.filter(s => s.do !== 'answer')) {
		const state = await timed('read', 'get_browser_state', { tab_id: tabId });
		const action = actionFor(step, parseState(state.text));
		if (action === null)
			throw new Error(`${spec.name}: the floor found no "${step.label}" in:\n${state.text}`);
		await timed('actions', action.tool, { ...action.args, ...(action.args.ref === undefined ? { tab_id: tabId } : {}) });
	}
	const state = await timed('read', 'get_browser_state', { tab_id: tabId });
	const text = await timed('page text', 'get_page_content', { tab_id: tabId, format: 'text' });
	const wall = Date.now() - started;
	const pattern = new RegExp(spec.steps.at(-1).pattern);
	if (!pattern.test(`${state.text}\n${text.text}`))
		throw new Error(`${spec.name}: the floor's script did not reach the answer`);
	await b.ok('manage_tabs', { action: 'close', tab_id: tabId });
	addPhase(phases, 'not in a span', wall - [...phases.values()].reduce((sum, ms) => sum + ms, 0));
	return { wall, start, phases };
}

// Sets (or with null clears) localStorage "drift" on the fixture site's
// origin, which the three tasks' pages read (tests/e2e/site: "moved", "renamed").
async function setDrift(b, value) {
	const { url, tabId } = await b.open('index.html?drift-switch');
	await b.evaluate(url, value === null ? 'localStorage.removeItem("drift")' : `localStorage.setItem("drift", ${JSON.stringify(value)})`);
	return tabId;
}

// Replays a task's recipe with run_recipe (in a new tab, closed after);
// resolves to its wall time, the model requests the scripted model's server
// got meanwhile, and the error that stopped it, if one did.
async function replayRun(b, recipeId, model, { heal = false } = {}) {
	const requests = (await model.log()).length;
	const started = Date.now();
	const result = await b.call('run_recipe', { recipe_id: recipeId, ...(heal ? { heal: true } : {}) }, { timeout: 120000 });
	const wall = Date.now() - started;
	if (!result.isError)
		await b.ok('manage_tabs', { action: 'close', tab_id: result.structuredContent.tab_id });
	return { wall, modelRequests: (await model.log()).length - requests, error: result.isError ? result.content[0].text : null,
		healed: result.structuredContent?.healed_steps ?? [] };
}

// The replays of a task's recipe: RUNS on the pages as recorded, each
// followed by a floor run, then RUNS on the "moved" pages; then on the
// "renamed" pages one without heal (it stops), one with heal (the model
// asked for the renamed step only) and one more of the healed version. The
// agents are pointed at a scripted model of the task throughout, whose
// server counts any request a replay makes; for the heal, at one that
// answers the renamed step.
async function replayRuns(b, spec, recipeId) {
	const model = await startModelServer({ steps: spec.steps, usage: 'estimate' });
	const healer = await startModelServer({ steps: [spec.renamed], usage: 'estimate' });
	try {
		await configureAgents(b, { baseUrl: `${model.url}/v1` });
		const replays = [];
		const floor = [];
		await replayRun(b, recipeId, model);
		for (let i = 0; i < RUNS; i++) {
			replays.push(await replayRun(b, recipeId, model));
			floor.push(await floorRun(b, spec));
		}
		const moved = [];
		const renamed = {};
		await setDrift(b, 'moved');
		try {
			for (let i = 0; i < RUNS; i++)
				moved.push(await replayRun(b, recipeId, model));
			await setDrift(b, 'renamed');
			renamed.plain = await replayRun(b, recipeId, model);
			await configureAgents(b, { baseUrl: `${healer.url}/v1` });
			renamed.healed = await replayRun(b, recipeId, healer, { heal: true });
			renamed.after = await replayRun(b, recipeId, healer);
		} finally {
			const tabId = await setDrift(b, null);
			await b.ok('manage_tabs', { action: 'close', tab_id: tabId });
		}
		return { replays, floor, moved, renamed };
	} finally {
		await model.close();
		await healer.close();
	}
}

// One role's line of the model table, from the requests of one run.
function roleLine(task, role, entries) {
	const sum = key => entries.reduce((total, entry) => total + key(entry), 0);
	const later = entries.slice(1).map(entry => entry.repeat / entry.chars_in);
	const share = later.length > 0 ? `${Math.round(100 * median(later))} % / ${Math.round(100 * Math.min(...later))} %` : '-';
	const fresh = later.length > 0 ? Math.max(...entries.slice(1).map(entry => entry.chars_in - entry.repeat - entry.state_chars)) : '-';
	return `| ${task} | ${role} | ${entries.length} | ${sum(e => e.chars_in)} | ${sum(e => e.chars_out)} | ${sum(e => e.usage.input_tokens)} | ` +
	    `${sum(e => e.usage.output_tokens)} | ${sum(e => e.usage.cached_tokens)} | ${share} | ${fresh} |`;
}

const b = await startBridge();
const results = [];
/* A replay on the pages as recorded must work: the ratio means nothing otherwise. */
const checkReplays = ({ spec, replay }) => {
	const failed = replay.replays.find(run => run.error !== null);
	if (failed !== undefined)
		throw new Error(`${spec.name}: the replay of its recipe failed: ${failed.error}`);
};
try {
	for (const spec of TASKS) {
		const agents = [];
		const floor = [];
		await agentsRun(b, spec);
		await floorRun(b, spec);
		for (let i = 0; i < RUNS; i++) {
			agents.push(await agentsRun(b, spec));
			floor.push(await floorRun(b, spec));
		}
		results.push({ spec, agents, floor, replay: await replayRuns(b, spec, agents.at(-1).recipeId) });
		checkReplays(results.at(-1));
	}
} finally {
	await b.close();
}

console.log(`The agents' benchmark (${RUNS} runs per task after a warm-up, each agents run followed by a floor run; ` +
    'scripted model answering at once; medians).\n');
console.log('| task | wall ms | model ms | model calls | navigator steps | start ms / floor | browser ms per step | floor ms per step | ratio | ratio spread | best ratio | ratio, model time on the wire | ratio less the model calls\' transport |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const { spec, agents, floor } of results) {
	/* Per step of the scenario (its actions and the answer), the same count for both. */
	const steps = spec.steps.length;
	const browser = agents.map(run => (run.wall - run.modelMs) / steps);
	const direct = floor.map(run => run.wall / steps);
	const ratios = browser.map((ms, i) => ms / direct[i]);
	/* The same, with each model call's time outside the server (the request's way there and back) counted as the model's. */
	const inBrowser = agents.map((run, i) => (run.wall - run.modelMs - run.phases.get('model call, less the server')) / steps / direct[i]);
	/* Or with the model's time from each request's first byte sent to its response's last byte received (Resource Timing). */
	const onWire = agents.map((run, i) => (run.wall - run.wireMs) / steps / direct[i]);
	console.log(`| ${spec.name} | ${median(agents.map(r => r.wall))} | ${median(agents.map(r => r.modelMs))} | ${median(agents.map(r => r.log.length))} | ` +
	    `${median(agents.map(r => r.steps))} | ${median(agents.map(r => r.start))} / ${median(floor.map(r => r.start))} | ${Math.round(median(browser))} | ${Math.round(median(direct))} | ` +
	    `${median(ratios).toFixed(2)} | ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} | ` +
	    `${(Math.min(...browser) / Math.min(...direct)).toFixed(2)} | ${median(onWire).toFixed(2)} | ${median(inBrowser).toFixed(2)} |`);
}
console.log(`\nReplays of each task's recipe (the one its last agents run left) with run_recipe, no model (${RUNS} replays per task after ` +
    'a warm-up, each followed by a floor run; medians): model requests during the replays, counted at the scripted model\'s server; ' +
    'the replay\'s wall time beside the floor\'s (the same actions called directly, with a state read before each); then on the drifted ' +
    'pages, "moved" (ids and classes renamed, an element moved to another container) and "renamed" (also one control the task uses renamed):\n');
console.log('| task | model requests | replay ms | floor ms | ratio | ratio spread | moved: replays done | moved: model requests | moved: replay ms | ' +
    'renamed, no heal | renamed, heal: model requests | healed steps | healed version: model requests |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: |');
/* How a replay ended, in a few words for the table. */
const outcome = run => run.error === null ? 'replayed' : `stopped: ${run.error.replace(/\|/g, '\\|').replace(/ The page offers.*$/s, '').slice(0, 120)}`;
for (const { spec, replay } of results) {
	const ratios = replay.replays.map((run, i) => run.wall / replay.floor[i].wall);
	const requests = runs => runs.reduce((sum, run) => sum + run.modelRequests, 0);
	const moved = replay.moved.filter(run => run.error === null);
	const { plain, healed, after } = replay.renamed;
	console.log(`| ${spec.name} | ${requests(replay.replays)} | ${median(replay.replays.map(run => run.wall))} | ${median(replay.floor.map(run => run.wall))} | ` +
	    `${median(ratios).toFixed(2)} | ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} | ` +
	    `${moved.length} of ${replay.moved.length} | ${requests(replay.moved)} | ${moved.length > 0 ? median(moved.map(run => run.wall)) : '-'} | ` +
	    `${outcome(plain)} (${plain.modelRequests} requests) | ${healed.modelRequests} | ${healed.error === null ? healed.healed.join(', ') || 'none' : outcome(healed)} | ` +
	    `${after.error === null ? after.modelRequests : outcome(after)} |`);
}
console.log('\nWhere the time goes (ms per task, the median of the runs per phase; the agents from the extension\'s trace hook ' +
    'and the model server\'s log, the floor from its script\'s calls):\n');
console.log('| task | phase | agents ms | floor ms |');
console.log('| --- | --- | ---: | ---: |');
for (const { spec, agents, floor } of results) {
	const names = [...new Set([...agents.flatMap(run => [...run.phases.keys()]), ...floor.flatMap(run => [...run.phases.keys()])])];
	for (const name of names) {
		const of = runs => runs.some(run => run.phases.has(name)) ? Math.round(median(runs.map(run => run.phases.get(name) ?? 0))) : '-';
		console.log(`| ${spec.name} | ${name} | ${of(agents)} | ${of(floor)} |`);
	}
}
console.log('\nModel requests of the last run (tokens: characters / 4, as the scripted model estimates them; cached: the tokens of ' +
    'the repeat of that role\'s previous request; repeat: median / lowest share of each request after the first that repeats ' +
    'the previous one\'s beginning; new: most characters of a request that are neither a repeat nor the page state):\n');
console.log('| task | role | calls | chars in | chars out | tokens in | tokens out | cached tokens | repeat | new |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const { spec, agents } of results) {
	const log = agents.at(-1).log;
	for (const role of ['planner', 'navigator', 'validator']) {
		const entries = log.filter(entry => entry.role === role && entry.status === 200);
		if (entries.length > 0)
			console.log(roleLine(spec.name, role, entries));
	}
}
