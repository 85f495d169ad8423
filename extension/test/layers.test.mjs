// The extension's layering (docs/architecture.md, "Module graph"), read
// from the source of every module under src/:
//
// 1. actions/ and agents/ name no `chrome` outside comments and strings:
//    actions reach Chrome only through browser/*.js, and the agents are
//    handed the Chrome parts they use (storage, tabs, rules) as arguments.
// 2. agents/ imports nothing from browser/, actions/, page-state/ or
//    dispatcher.js: the agents act on pages only through the dispatcher
//    they are handed. The one exception is the task manager
//    (agents/task-manager.js), which finds a task's tab (browser/tabs.js)
//    and names the network tools the person may withhold
//    (actions/network.js); the step loop (agents/task-loop.js) has none.
// 3. browser/ and page-state/ import nothing from actions/, agents/ or
//    dispatcher.js: they are the layer the actions stand on.
// 4. Every relative import names a module that exists.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/** Imports a module of agents/ may make past rule 2, by module. */
const AGENT_IMPORTS_ALLOWED = {
	'agents/task-manager.js': ['browser/tabs.js', 'actions/network.js'],
};

// Every .js file under dir, as paths relative to src/.
function layersModules(dir = SRC) {
	return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
		const path = join(dir, entry.name);
		if (entry.isDirectory())
			return layersModules(path);
		return entry.name.endsWith('.js') ? [relative(SRC, path)] : [];
	});
}

// The code of a module with comments, strings, template text and regex
// literals blanked out (what is left is identifiers, operators, brackets).
function layersCode(source) {
	let out = '';
	let i = 0;
	const braces = [];	/* per open `${`: the depth of { } inside it */
	let last = '';	/* the last significant character of code */
	while (i < source.length) {
		const c = source[i];
		const next = source[i + 1];
		if (c === '/' && next === '/') {
			while (i < source.length && source[i] !== '\n')
				i++;
		} else if (c === '/' && next === '*') {
			const end = source.indexOf('*/', i + 2);
			i = end < 0 ? source.length : end + 2;
			out += ' ';
		} else if (c === '\'' || c === '"') {
			i = layersSkipQuoted(source, i, c);
			out += '""';
			last = '"';
		} else if (c === '`' || (c === '}' && braces.length > 0 && braces.at(-1) === 0)) {
			if (c === '}')
				braces.pop();
			i = layersSkipTemplate(source, i + 1, braces);
			out += '``';
			last = '`';
		} else if (c === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last) || /\b(return|typeof|case)\s*$/.test(out))) {
			i = layersSkipRegex(source, i);
			out += '/r/';
			last = '/';
		} else {
			if (c === '{' && braces.length > 0)
				braces[braces.length - 1]++;
			if (c === '}' && braces.length > 0)
				braces[braces.length - 1]--;
			out += c;
			if (!/\s/.test(c))
				last = c;
			i++;
		}
	}
	return out;
}

// Past a quoted string that starts at i.
function layersSkipQuoted(source, i, quote) {
	for (i++; i < source.length && source[i] !== quote; i++) {
		if (source[i] === '\\')
			i++;
	}
	return i + 1;
}

// Past template text from i: to its closing backquote, or into a `${`
// (pushed on braces, code again until its `}`).
function layersSkipTemplate(source, i, braces) {
	for (; i < source.length; i++) {
		if (source[i] === '\\') {
			i++;
		} else if (source[i] === '`') {
			return i + 1;
		} else if (source[i] === '$' && source[i + 1] === '{') {
			braces.push(0);
			return i + 2;
		}
	}
	return i;
}

// Past a regex literal that starts at i (classes may hold a slash).
function layersSkipRegex(source, i) {
	let inClass = false;
	for (i++; i < source.length; i++) {
		const c = source[i];
		if (c === '\\')
			i++;
		else if (c === '[')
			inClass = true;
		else if (c === ']')
			inClass = false;
		else if (c === '/' && !inClass)
			break;
	}
	for (i++; /[a-z]/.test(source[i] ?? ''); i++)
		;
	return i;
}

// The modules a module imports (static import and export ... from), as
// paths relative to src/; bare specifiers as written.
function layersImports(module) {
	const source = readFileSync(join(SRC, module), 'utf8');
	const pattern = /^\s*(?:import\b[^;'"]*?\bfrom\s*|export\s*[*{][^;'"]*?\bfrom\s*|import\s*)['"]([^'"]+)['"]/gm;
	const specifiers = [...source.matchAll(pattern)].map(match => match[1]);
	return specifiers.map(specifier => specifier.startsWith('.') ?
	    relative(SRC, resolve(SRC, dirname(module), specifier)) : specifier);
}

const modules = layersModules();

test('the code reader keeps the code and blanks comments, strings, templates and regexes', () => {
	const code = layersCode([
		'// chrome.tabs',
		'/* chrome.windows */ const a = "chrome.x" + \'chrome.y\';',
		'const b = `chrome.z ${ {c: chrome.tabs}.c } and ${`chrome.w`}`;',
		'const r = /chrome\\/[\'"]/g; if (a / 2) chrome.storage.local;',
	].join('\n'));
	assert.equal(code.match(/\bchrome\b/g).length, 2, code);
	assert.match(code, /c: chrome\.tabs/);
	assert.match(code, /\) chrome\.storage/);
	assert.match(code, /a \/ 2/);
});

test('the code reader reads every module to balanced brackets', () => {
	for (const module of modules) {
		const code = layersCode(readFileSync(join(SRC, module), 'utf8'));
		const depth = { '(': 0, '[': 0, '{': 0 };
		const opener = { ')': '(', ']': '[', '}': '{' };
		for (const c of code) {
			if (c in depth)
				depth[c]++;
			else if (c in opener)
				depth[opener[c]]--;
		}
		assert.deepEqual(depth, { '(': 0, '[': 0, '{': 0 }, module);
	}
});

test('actions and agents name no chrome API (rule 1)', () => {
	const offenders = modules
	    .filter(module => module.startsWith('actions/') || module.startsWith('agents/'))
	    .filter(module => /\bchrome\b/.test(layersCode(readFileSync(join(SRC, module), 'utf8'))));
	assert.deepEqual(offenders, [], 'these modules call Chrome directly: move the calls into browser/*.js');
});

test('agents import no browser, action, page-state or dispatcher module but the allowed ones (rule 2)', () => {
	const found = [];
	for (const module of modules.filter(name => name.startsWith('agents/'))) {
		const allowed = AGENT_IMPORTS_ALLOWED[module] ?? [];
		for (const target of layersImports(module)) {
			if (/^(browser|actions|page-state)\/|^dispatcher\.js$/.test(target) && !allowed.includes(target))
				found.push(`${module} -> ${target}`);
		}
	}
	assert.deepEqual(found, []);
	assert.deepEqual(layersImports('agents/task-loop.js').filter(target => !target.startsWith('agents/')).sort(),
	    ['errors.js', 'json-schema.js', 'keys.js', 'sleep.js'], 'the step loop stands on pure modules only');
});

test('browser and page-state modules import nothing above them (rule 3)', () => {
	const found = [];
	for (const module of modules.filter(name => /^(browser|page-state)\//.test(name))) {
		for (const target of layersImports(module)) {
			if (/^(actions|agents)\/|^dispatcher\.js$/.test(target))
				found.push(`${module} -> ${target}`);
		}
	}
	assert.deepEqual(found, []);
});

test('every relative import names a module that exists (rule 4)', () => {
	for (const module of modules) {
		for (const target of layersImports(module))
			assert.ok(!target.endsWith('.js') || existsSync(join(SRC, target)), `${module} imports ${target}, which does not exist`);
	}
	assert.ok(layersImports('dispatcher.js').includes('tab-queue.js'), 'imports are read');
});
