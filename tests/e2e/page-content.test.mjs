// End-to-end: get_page_content (Readability main content as Markdown,
// text, HTML of one element, max_chars with its note, errors).

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';

import { startBridge } from './harness.mjs';

describe('get_page_content', () => {
	let b;
	before(async () => {
		b = await startBridge();
	});
	after(async () => {
		await b?.close();
	});

	test('main_content markdown drops the navigation and keeps the whole article', async () => {
		await b.open('article.html');
		const { text, data } = await b.ok('get_page_content', { main_content: true });
		assert.equal(data.format, 'markdown');
		assert.equal(data.truncated, false);
		for (const chrome of ['navlink', 'Trending sidebar', 'Sidebar story', 'Copyright footer', 'Sign in'])
			assert.ok(!text.includes(chrome), `"${chrome}" is gone from:\n${text}`);
		for (const part of ['first paragraph tells', 'second paragraph describes', 'third paragraph recalls', 'fourth paragraph ends'])
			assert.ok(text.includes(part), `"${part}" is in:\n${text}`);
		assert.match(text, /^## Storms in December$/m, 'the heading as Markdown');
		assert.ok(text.includes('[lighthouse archive](https://example.com/archive)'), 'the link as Markdown');
		const whole = await b.ok('get_page_content', {});
		assert.ok(whole.text.includes('World navlink'), 'without main_content the navigation is kept');
		assert.match(text, /^# The lighthouse keeper's long winter$/m, 'the article keeps its h1');
	});

	test('main_content starts with the article\'s h1 even when it repeats the page title, in every format', async () => {
		await b.open('article-titled.html');
		const markdown = await b.ok('get_page_content', { main_content: true });
		assert.match(markdown.text, /^# The lighthouse keeper's long winter\n\nThe first paragraph tells/, markdown.text);
		assert.ok(!markdown.text.includes('Fixture News'), `the site's logo heading stays out:\n${markdown.text}`);
		const plain = await b.ok('get_page_content', { main_content: true, format: 'text' });
		assert.match(plain.text, /^The lighthouse keeper's long winter\n/, plain.text);
		const html = await b.ok('get_page_content', { main_content: true, format: 'html' });
		assert.match(html.text, /^<div[^>]*><h1>The lighthouse keeper's long winter<\/h1>/, html.text);
	});

	test('text the page hides is never read, in any format or mode', async () => {
		await b.open('article.html');
		for (const args of [{}, { main_content: true }, { format: 'text' }, { format: 'text', main_content: true },
			{ format: 'html' }, { format: 'html', main_content: true }, { selector: 'article' }]) {
			const { text } = await b.ok('get_page_content', args);
			assert.ok(text.includes('second paragraph describes'), `${JSON.stringify(args)} reads the article`);
			assert.doesNotMatch(text, /secret (paragraph|text)/, `${JSON.stringify(args)} leaves hidden text out:\n${text}`);
		}
	});

	test('text format, html of an element by selector, and max_chars with an honest note', async () => {
		await b.open('article.html');
		const plain = await b.ok('get_page_content', { format: 'text', main_content: true });
		assert.ok(plain.text.includes('Storms in December'));
		assert.ok(!plain.text.includes('](') && !plain.text.includes('<p>'), 'plain text, no markup');
		assert.ok(!plain.text.includes('navlink'));
		const html = await b.ok('get_page_content', { format: 'html', selector: 'nav.menu' });
		assert.match(html.text, /^<nav class="menu"><ul><li><a href="\/world">World navlink<\/a>/);
		assert.ok(!html.text.includes('lighthouse'));
		const cut = await b.ok('get_page_content', { main_content: true, max_chars: 100 });
		assert.equal(cut.data.truncated, true);
		assert.ok(cut.data.total_chars > 100);
		assert.match(cut.text, new RegExp(`\\[Content cut: showing the first 100 of ${cut.data.total_chars} characters\\. Raise max_chars`));
		assert.ok(cut.text.split('\n\n[Content cut')[0].length <= 100);
	});

	test('an element by ref, and selector errors', async () => {
		await b.open('article.html');
		const s = await b.state();
		const ref = s.ref('link', 'lighthouse archive');
		const link = await b.ok('get_page_content', { ref });
		assert.equal(link.text, '[lighthouse archive](https://example.com/archive)');
		const none = await b.fails('get_page_content', { selector: '#nothing-here' });
		assert.equal(none.code, 'ELEMENT_NOT_FOUND');
		assert.match(none.message, /No element matches the selector "#nothing-here"/);
		const bad = await b.fails('get_page_content', { selector: '<<' });
		assert.equal(bad.code, 'INVALID_ARGUMENT');
	});
});
