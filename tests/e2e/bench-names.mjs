// make bench-e2e, second part: Browser Bridge's hand-written names
// (extension/in-page/names.js, labels.js's nameOf) beside
// dom-accessibility-api's computeAccessibleName (pinned in
// tests/bench/package.json), on every page the names oracle covers
// (ax-oracle.mjs: the fixture site and its corpus of real page shapes in
// site/names). For each element of a page's state that has a role of its
// own (see measureFrame for those left out): the product's name (the
// state's), the library's name computed in the page's own (main) world on
// the same DOM node, and Chromium's (its accessibility tree). Both names
// are judged against Chromium's the same way (ax-oracle.mjs's judge:
// whitespace collapsed, the library's name cut at 80 characters with … as
// the state cuts names, the INTENDED differences counted as agreeing).
// Then each page's names are read by each, in turn, for BENCH_NAMES_ROUNDS
// rounds (default 20), timed inside the page: the product's nameOf in the
// extension's isolated world, the library in the page's world. Prints a
// Markdown table (agreement, median ms per full read of a page's names)
// and a total row; writes every element compared to
// $E2E_ARTEFACTS/bench-names.json.
//
// Not part of make check. Run: make bench-e2e, or only this script:
// E2E_SCRIPT=e2e/bench-names.mjs BENCH_PEERS=<dir with the bench packages> tests/e2e.sh

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';

import { startBridge } from './harness.mjs';
import { NO_ROLE, clean, judge, oraclePages, tieToChromium } from './ax-oracle.mjs';

const ROUNDS = Number(process.env.BENCH_NAMES_ROUNDS || 20);
const PEERS = process.env.BENCH_PEERS;	// the folder with the bench packages' node_modules
/** Where dom-accessibility-api's CommonJS build is. */
const LIBRARY_DIST = join(PEERS ?? '.', 'node_modules/dom-accessibility-api/dist');
/** The global the library's exports get in a page's main world. */
const LIBRARY_GLOBAL = '__benchDomAccessibilityApi';
/** Longest name in a state, and how the state cuts a longer one (extension/in-page/text.js). */
const NAME_MAX = 80;

/** Every file under dir, as paths relative to it with / between parts. */
function filesUnder(dir, prefix = '') {
	return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap(entry => {
		const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
		return entry.isDirectory() ? filesUnder(dir, path) : [path];
	});
}

/**
 * A classic script that runs a package's CommonJS files (the .js files
 * under dir) in a page and sets globalThis[name] to entry's exports: each
 * file becomes a function of (module, exports, require), with its relative
 * require()s resolved here. The library ships ES modules too, but they
 * import each other by relative URL, which a script evaluated through
 * DevTools has none of.
 */
function commonJsBundle(dir, entry, name) {
	const modules = filesUnder(dir).filter(file => file.endsWith('.js')).map(file => {
		const source = readFileSync(join(dir, file), 'utf8');
		const requires = {};
		for (const [, spec] of source.matchAll(/require\("([^"]+)"\)/g)) {
			if (!spec.startsWith('.'))
				throw new Error(`${file} requires ${spec}, which is outside the package`);
			const path = posix.join(posix.dirname(file), spec);
			requires[spec] = path.endsWith('.js') ? path : `${path}.js`;
		}
		return `${JSON.stringify(file)}: [${JSON.stringify(requires)}, function (module, exports, require) {\n${source}\n}]`;
	});
	return `globalThis.${name} ??= (() => {
		const modules = {${modules.join(',\n')}};
		const loaded = new Map();
		const load = file => {
			if (!loaded.has(file)) {
				const module = { exports: {} };
				loaded.set(file, module);
				const [requires, body] = modules[file];
				body(module, module.exports, spec => load(requires[spec]));
			}
			return loaded.get(file).exports;
		};
		return load(${JSON.stringify(entry)});
	})(); undefined`;
}

/** Options for computeAccessibleName in a browser, whose getComputedStyle reads ::before and ::after. */
const LIBRARY_OPTIONS = '{ computedStyleSupportsPseudoElements: true }';

/** The library's name and role of each element given (its arguments), in the page's main world. */
const LIBRARY_NAMES = `function (...elements) {
	const { computeAccessibleName, getRole } = globalThis.${LIBRARY_GLOBAL};
	return elements.map(element => {
		try {
			return { name: computeAccessibleName(element, ${LIBRARY_OPTIONS}), role: getRole(element) ?? '' };
		} catch (error) {
			return { error: String(error) };
		}
	});
}`;

/** The least time a timed round reads names for: performance.now() steps by 0.1 ms in a page. */
const ROUND_MS = 2;

/**
 * A function declaration for the page that runs setup, then read (a
 * statement naming every element once) again and again for at least
 * ROUND_MS, and answers the milliseconds one read took.
 */
function timedReads(params, setup, read) {
	return `function (${params}) {
		${setup}
		let reads = 0;
		let elapsed;
		const start = performance.now();
		do {
			${read}
			reads++;
			elapsed = performance.now() - start;
		} while (elapsed < ${ROUND_MS});
		return elapsed / reads;
	}`;
}

/** Milliseconds the library takes to name every element given (its arguments), in the page's main world. */
const LIBRARY_READ = timedReads('...elements', `const { computeAccessibleName } = globalThis.${LIBRARY_GLOBAL};`, `
	for (const element of elements) {
		try {
			computeAccessibleName(element, ${LIBRARY_OPTIONS});
		} catch {
			/* counted as a wrong name already */
		}
	}`);

/** The product's elements of these local ids, in the extension's isolated world. */
const PRODUCT_ELEMENTS = 'const elements = localIds.map(id => globalThis.__browserBridgePage.element(id));';

/** The product's names (nameOf) of the elements with these local ids and state roles. */
const PRODUCT_NAMES = `function (localIds, roles) {
	${PRODUCT_ELEMENTS}
	return elements.map((element, i) => globalThis.__browserBridgePageParts.labels.nameOf(element, roles[i]));
}`;

/** Milliseconds the product's nameOf takes to name the elements with these local ids and state roles. */
const PRODUCT_READ = timedReads('localIds, roles', `const { nameOf } = globalThis.__browserBridgePageParts.labels;
	${PRODUCT_ELEMENTS}`, `
	for (let i = 0; i < elements.length; i++)
		nameOf(elements[i], roles[i]);`);

/** Calls a function declaration in a context (or on an object); resolves to its value. */
async function call(cdp, sessionId, target, functionDeclaration, args) {
	const { result, exceptionDetails } = await cdp.send('Runtime.callFunctionOn',
	    { ...target, functionDeclaration, arguments: args, returnByValue: true, awaitPromise: true }, sessionId);
	if (exceptionDetails)
		throw new Error(`${functionDeclaration.slice(0, 60)}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
	return result.value;
}

/** A name cut as the state cuts names: whitespace collapsed, at most NAME_MAX characters ending in …. */
function cutName(name) {
	const s = clean(name);
	return s.length > NAME_MAX ? `${s.slice(0, NAME_MAX - 1)}…` : s;
}

/** Whether a judged name agrees with Chromium's (exactly or by an INTENDED difference). */
const agrees = verdict => verdict.nameOk || verdict.intended !== null;

/**
 * Measures one frame of a page (a visit of tieToChromium): loads the
 * library into the frame's main world, names each element with both, and
 * times ROUNDS rounds of full reads of each (the time of one read, added
 * to the round's of the page's other frames). Adds to the page's record. The elements
 * without an ARIA role (NO_ROLE: clickable, draggable, hoverable,
 * scrollable) are only counted: Chromium gives them no name, the state
 * names them on purpose (by their text, or a scroll box by its heading or
 * id, which is not even nameOf), and the library answers '' for them at
 * once, so timing them would weigh different work.
 */
async function measureFrame(cdp, bundle, frame, tied, record) {
	const { sessionId, isolatedContext, mainContext } = frame;
	const elements = tied.filter(e => !NO_ROLE.has(e.ours.role));
	record.leftOut += tied.length - elements.length;
	if (mainContext === undefined)
		throw new Error(`${frame.url}: no main world`);
	await cdp.send('Runtime.evaluate', { expression: bundle, contextId: mainContext }, sessionId);
	const handles = [];
	for (const { backendNodeId } of elements) {
		const { object } = await cdp.send('DOM.resolveNode',
		    { backendNodeId, executionContextId: mainContext, objectGroup: 'bench-names' }, sessionId);
		handles.push({ objectId: object.objectId });
	}
	try {
		const main = { executionContextId: mainContext };
		const isolated = { executionContextId: isolatedContext };
		const ids = [{ value: elements.map(e => e.localId) }, { value: elements.map(e => e.ours.role) }];
		const library = await call(cdp, sessionId, main, LIBRARY_NAMES, handles);
		const product = await call(cdp, sessionId, isolated, PRODUCT_NAMES, ids);
		for (let i = 0; i < elements.length; i++) {
			const { ref, element, ours, theirs } = elements[i];
			if (cutName(product[i]) !== ours.name)
				throw new Error(`${frame.url} ${element}: nameOf gives ${JSON.stringify(product[i])}, the state ${JSON.stringify(ours.name)}`);
			const libraryName = library[i].error === undefined ? cutName(library[i].name) : `(error: ${library[i].error})`;
			const mine = { ...ours, name: libraryName };
			record.elements.push({ page: frame.url, ref, element, ours, theirs, library: { name: libraryName, role: library[i].role },
				product: judge(ours, theirs, element), libraryVerdict: judge(mine, theirs, element) });
		}
		/* Rounds in turn, so a busy moment of the machine falls on both. */
		for (let round = 0; round < ROUNDS && elements.length > 0; round++) {
			record.productRounds[round] += await call(cdp, sessionId, isolated, PRODUCT_READ, ids);
			record.libraryRounds[round] += await call(cdp, sessionId, main, LIBRARY_READ, handles);
		}
	} finally {
		await cdp.send('Runtime.releaseObjectGroup', { objectGroup: 'bench-names' }, sessionId);
	}
}

/** The median of a list of numbers. */
function median(values) {
	const sorted = [...values].sort((x, y) => x - y);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The table's row for a set of judged elements and the ms of one read by each. */
function row(label, elements, leftOut, productMs, libraryMs) {
	const count = verdicts => `${verdicts.filter(agrees).length} (${verdicts.filter(v => v.nameOk).length})`;
	return `| ${label} | ${elements.length} | ${leftOut} | ${count(elements.map(e => e.product))} | ${count(elements.map(e => e.libraryVerdict))} | ` +
	    `${productMs.toFixed(2)} | ${libraryMs.toFixed(2)} |`;
}

if (PEERS === undefined)
	throw new Error('BENCH_PEERS must name the folder where tests/bench/package.json was installed (make bench-e2e does it)');
const bundle = commonJsBundle(LIBRARY_DIST, 'index.js', LIBRARY_GLOBAL);
const b = await startBridge();
const pages = [];
try {
	for (const page of oraclePages()) {
		const { url } = await b.open(page);
		const record = { page, elements: [], leftOut: 0,
			productRounds: new Array(ROUNDS).fill(0), libraryRounds: new Array(ROUNDS).fill(0) };
		const problems = await tieToChromium(b, url, (frame, elements) => measureFrame(b.cdp, bundle, frame, elements, record));
		if (problems.length > 0)
			throw new Error(`${page}: the oracle could not tie the state to the page:\n${problems.join('\n')}`);
		pages.push({ ...record, productMs: median(record.productRounds), libraryMs: median(record.libraryRounds) });
	}
} finally {
	await b.close();
}

const all = pages.flatMap(p => p.elements);
const sum = field => pages.reduce((total, p) => total + p[field], 0);
writeFileSync(join(process.env.E2E_ARTEFACTS ?? '.', 'bench-names.json'), JSON.stringify(all, null, 1));
console.log(`Names of the elements with a role of their own against Chromium's accessibility tree: agreeing names (exactly ` +
    `equal ones in brackets), and ms per full read of a page's names, timed in the page (median of ${ROUNDS} rounds, ` +
    `each reading them again and again for ${ROUND_MS} ms; total: the sum of the medians).\n`);
console.log('| page | elements | no role of their own (left out) | Browser Bridge agrees | dom-accessibility-api agrees | ' +
    'Browser Bridge ms | dom-accessibility-api ms |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const p of pages)
	console.log(row(p.page, p.elements, p.leftOut, p.productMs, p.libraryMs));
console.log(row('**total**', all, sum('leftOut'), sum('productMs'), sum('libraryMs')));
console.log(`\ndom-accessibility-api's getRole equals Chromium's role for ${all.filter(e => e.library.role === e.theirs.role).length} ` +
    `of the ${all.length} elements.`);
