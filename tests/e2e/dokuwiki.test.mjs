// End-to-end: a real web application through the MCP tools alone. A
// private DokuWiki (Debian's package, tests/e2e/dokuwiki.mjs) is logged in
// to, a page is written in its editor and saved, and DokuWiki's search finds
// it, each step by the refs an agent would pick from the state by role and
// name. DevTools and the wiki's files only check what happened. The wiki
// is an http page on 127.0.0.1, which the URL policy lets the tools open
// like the fixture site.
//
// DokuWiki's labels wrap their text in markup (<label><span>Username</span>
// <input></label>): the state must still name the fields. The names and
// roles of the login form, the editor and the search results are also
// compared with Chromium's accessibility tree (ax-oracle.mjs).

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

import { agreement, compareWithChromium, disagreements } from './ax-oracle.mjs';
import { startBridge, until } from './harness.mjs';
import { startDokuWiki } from './dokuwiki.mjs';

// The page the test writes, and a word no other page holds.
const PAGE = 'playground:bridge_notes';
const WORD = 'quokkaferry';
const TEXT = `Notes written by Browser Bridge: the ${WORD} leaves at noon.`;

describe('DokuWiki', () => {
	let b;
	let wiki;
	before(async () => {
		wiki = await startDokuWiki();
		b = await startBridge();
	});
	after(async () => {
		try {
			await b?.close();
		} finally {
			await wiki?.close();
		}
	});

	// Evaluates expression in the wiki's tab (DevTools, for checking only).
	const inWiki = expression => b.evaluate(url => url.startsWith(`${wiki.origin}/`), expression);
	// What the wiki's tab shows.
	const shown = () => inWiki('document.body.innerText');

	// Fails when a name or role in the state of the wiki page in the active
	// tab differs from Chromium's accessibility tree, other than by a
	// difference ax-oracle.mjs's INTENDED lists; prints how many agree.
	// The oracle reads the page twice (the state, then the in-page listing
	// it ties to DOM nodes), so it waits first until the page has loaded and
	// the expression ready holds: the page's scripts have added what they add.
	async function namesAgreeWithChromium(what, ready = 'true') {
		await until(() => inWiki(`document.readyState === "complete" && (${ready})`), { what: `the ${what} to be ready` });
		const tab = await b.cdp.findTarget(url => url.startsWith(`${wiki.origin}/`), ['page']);
		const { compared, problems } = await compareWithChromium(b, tab.url);
		console.log(`DokuWiki's ${what}: ${agreement(compared)}`);
		const wrong = [...problems, ...disagreements(compared)];
		assert.deepEqual(wrong, [], `the ${what}: ${agreement(compared)}\n${wrong.join('\n')}`);
		assert.ok(compared.length > 0, `the oracle compared no element of the ${what}`);
	}

	test('logs in with the fields the state names Username and Password', async () => {
		await b.ok('navigate_to', { url: wiki.url('start') });
		await b.ok('click_element', { ref: (await b.state()).ref('link', 'Log In') });
		await namesAgreeWithChromium('login form');
		const form = await b.state();
		await b.ok('type_value', { ref: form.ref('textbox', 'Username'), text: wiki.user });
		await b.ok('type_value', { ref: form.ref('textbox', 'Password'), text: wiki.password });
		await b.ok('click_element', { ref: form.ref('button', 'Log In') });
		await until(async () => (await shown()).includes(`Logged in as: ${wiki.fullName} (${wiki.user})`),
		    { what: 'the wiki to show the user logged in' });
		assert.ok((await b.state()).find('link', 'Log Out'), 'the state offers to log out');
	});

	test('writes a new page in the editor and saves it', async () => {
		await b.ok('navigate_to', { url: wiki.url(PAGE) });
		await b.ok('click_element', { ref: (await b.state()).ref('link', /^Create this page/) });
		// DokuWiki's editor script adds the text area's size controls once the document is ready
		await namesAgreeWithChromium('editor', 'document.querySelector("#size__ctl img") !== null');
		const editor = await b.state();
		const textarea = editor.data.elements.filter(e => e.role === 'textarea');
		assert.equal(textarea.length, 1, `one text area to write in:\n${editor.text}`);
		await b.ok('type_value', { ref: textarea[0].ref, text: `====== Bridge notes ======\n\n${TEXT}\n` });
		await b.ok('click_element', { ref: editor.ref('button', 'Save') });
		await until(async () => (await shown()).includes(TEXT), { what: 'the saved page to show the text' });
		const heading = await inWiki('document.querySelector(".page h1")?.textContent');
		assert.equal(heading, 'Bridge notes');
		assert.match(wiki.pageSource(PAGE), new RegExp(`^====== Bridge notes ======\n\n${TEXT}\n?$`),
		    'the wiki stored the text as typed');
	});

	test('finds the saved page with the wiki\'s search', async () => {
		assert.ok(existsSync(wiki.pageFile('pages', PAGE, '.txt')), `the previous test saved ${PAGE}`);
		// the page view asked DokuWiki's task runner to index the page
		await until(() => wiki.indexed(PAGE), { what: `DokuWiki to index ${PAGE}` });
		const page = await b.state();
		const search = page.data.elements.find(e => e.role === 'textbox' && (e.name === 'Search' || e.placeholder === 'Search'));
		assert.ok(search, `a search box:\n${page.text}`);
		await b.ok('type_value', { ref: search.ref, text: WORD });
		await b.ok('click_element', { ref: page.ref('button', 'Search') });
		await until(async () => (await shown()).includes('Fulltext results'), { what: 'the search results' });
		const hits = await inWiki(
		    'JSON.stringify([...document.querySelectorAll(".search_fulltextresult a.wikilink1")].map(a => a.title))');
		assert.deepEqual(JSON.parse(hits), [PAGE]);
		const results = await b.state();
		assert.ok(results.data.elements.some(e => e.role === 'link' && e.href?.includes(`id=${PAGE}`)),
		    `the state links the hit:\n${results.text}`);
		await namesAgreeWithChromium('search results');
	});
});
