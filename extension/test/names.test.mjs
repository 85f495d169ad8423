// Accessible names (in-page/names.js and labels.js's nameOf) in a jsdom
// document, for the label shapes real sites use: text in spans, bold
// inside, an icon's alt, several labels, a label that wraps its input,
// whitespace or an element first. The expected names are Chromium's: the
// same shapes are in tests/e2e/site/names/labels.html, where the
// names-and-roles oracle (tests/e2e/names.test.mjs) compares the product
// with Chromium's own accessibility tree.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// tests/extension-unit.sh names the folder jsdom is installed in.
const packages = process.env.BRIDGE_TEST_PACKAGES;
const { JSDOM } = createRequire(packages ? `${packages}/` : import.meta.url)('jsdom');

const { IN_PAGE_SCRIPT } = await import('../src/browser/page-channel.js');
const sources = IN_PAGE_SCRIPT.files.map(file => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));

// The name the state gives the element #target of body, and its role.
function nameIn(body) {
	const { window } = new JSDOM(`<!doctype html><body>${body}</body>`, { runScripts: 'outside-only' });
	/* jsdom computes no pseudo-elements: these pages have no generated text. */
	const computedStyle = window.getComputedStyle.bind(window);
	window.getComputedStyle = (element, pseudo) => (pseudo ? { content: 'none' } : computedStyle(element));
	for (const source of sources)
		window.eval(source);
	const { labels } = window.__browserBridgePageParts;
	const target = window.document.getElementById('target');
	return labels.info(target).name;
}

const SHAPES = [
	['text in a span', '<label><span>Username</span> <input id="target"></label>', 'Username'],
	['text in spans with the input between', '<label><span>Pass</span><input id="target" type="password"><span>word</span></label>', 'Password'],
	['bold inside', '<label for="target">Full <b>name</b></label><input id="target">', 'Full name'],
	['an icon with alt first', '<label for="target"><img src="x.png" alt="Email"> address</label><input id="target" type="email">', 'Email address'],
	['an icon hidden from names', '<label for="target"><span aria-hidden="true">✉</span> Email</label><input id="target">', 'Email'],
	['two labels', '<label for="target">Card</label><input id="target"><label for="target">number</label>', 'Card number'],
	['a label that wraps its input', '<label>City <input id="target"> (required)</label>', 'City (required)'],
	['whitespace first', '<label for="target">\n\t   <em>Street</em>\n  </label><input id="target">', 'Street'],
	['an element first, text after', '<label for="target"><i class="icon"></i>Phone</label><input id="target" type="tel">', 'Phone'],
	['a checkbox in its label', '<label><input id="target" type="checkbox"> I <strong>agree</strong> to the terms</label>', 'I agree to the terms'],
	['a select named by its label', '<label for="target"><span>Country</span></label><select id="target"><option>Norway</option></select>', 'Country'],
	['a switch button named by a label', '<label for="target">Dark <span>mode</span></label><button id="target" role="switch"></button>', 'Dark mode'],
	['another field inside the label gives its value', '<label for="target">Repeat <input value="3"> times</label><input id="target">', 'Repeat 3 times'],
	['a hidden part of the label', '<label for="target">Name<span style="display:none"> (secret)</span></label><input id="target">', 'Name'],
	['more indentation than a name holds before its text (a component\'s template, as Shoelace\'s checkbox)',
		`<label>${'\n            '.repeat(10)}<input id="target" type="checkbox">${'\n        '.repeat(10)}<div><span>Send me news</span></div></label>`,
		'Send me news'],
];

for (const [shape, body, name] of SHAPES) {
	test(`a label with ${shape} names its control "${name}"`, () => {
		assert.equal(nameIn(body), name);
	});
}

test('aria-labelledby joins its targets, hidden ones too, and takes a target\'s own aria-label', () => {
	assert.equal(nameIn('<span id="a">Billing</span><span id="b" hidden>name</span><input id="target" aria-labelledby="a b">'),
	    'Billing name');
	assert.equal(nameIn('<span id="a" aria-label="Delivery">ignored</span><input id="target" aria-labelledby="a">'), 'Delivery');
});

test('buttons and links are named by their content: image alts, an svg title, aria-label inside', () => {
	assert.equal(nameIn('<button id="target"><img src="t.png" alt="Delete"></button>'), 'Delete');
	assert.equal(nameIn('<a id="target" href="/"><img src="l.png" alt="Home"> page</a>'), 'Home page');
	assert.equal(nameIn('<button id="target"><svg><title>Search</title><path d=""></path></svg></button>'), 'Search');
	assert.equal(nameIn('<button id="target"><svg role="img" aria-label="Close"></svg></button>'), 'Close');
	assert.equal(nameIn('<input id="target" type="image" src="go.png" title="Go">'), 'Go');
});
