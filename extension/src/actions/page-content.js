/**
 * get_page_content: the page, or one element (ref or CSS selector), as
 * Markdown (Turndown), text or HTML, optionally only the main content
 * (Readability), cut to max_chars with a note. The libraries are vendored
 * in vendor/ and run in the page's isolated world.
 * @module actions/page-content
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { IN_PAGE_SCRIPT, READABILITY, TURNDOWN, runInPage, runOnElement } from '../browser/page-channel.js';
import { contentText } from '../content-math.js';

/**
 * What readContent needs in the page for these options: the libraries
 * only when it uses them (Readability for the main content, Turndown for
 * markdown), so a plain text read injects neither into a new document.
 * @param {{format: string, mainContent: boolean}} options
 * @returns {import('../browser/page-channel.js').PageScript[]}
 */
export function contentNeeds(options) {
	return [IN_PAGE_SCRIPT, ...(options.mainContent ? [READABILITY] : []), ...(options.format !== 'text' && options.format !== 'html' ? [TURNDOWN] : [])];
}

/**
 * Reads the content; runs in the page, so it must be self-contained. What
 * the page hides (display: none, visibility: hidden, the hidden attribute)
 * is left out in every format, and the main content keeps its title.
 * @param {number|null} localId the element to read, or null for the page
 * @param {{format: string, selector?: string, mainContent: boolean}} options
 */
function readContent(localId, options) {
	const { format, selector, mainContent } = options;
	let root = null;
	let note = '';
	let title = document.title;
	if (localId !== undefined && localId !== null) {
		root = globalThis.__browserBridgePage?.element?.(localId) ?? null;
		if (root === null)
			return { stale: true };
	} else if (selector !== undefined && selector !== null) {
		try {
			root = document.querySelector(selector);
		} catch (error) {
			return { badSelector: String(error.message) };
		}
		if (root === null)
			return { noMatch: true };
	}
	/* Removes from copy what is hidden in live, which it was cloned from. */
	const pruneHidden = (live, copy) => {
		for (let i = live.children.length - 1; i >= 0; i--) {
			const element = live.children[i];
			const style = getComputedStyle(element);
			if (element.hidden || style.display === 'none' || style.visibility === 'hidden')
				copy.children[i]?.remove();
			else if (copy.children[i] !== undefined)
				pruneHidden(element, copy.children[i]);
		}
	};
	const visibleCopy = live => {
		const copy = live.cloneNode(true);
		pruneHidden(live, copy);
		return copy;
	};
	const body = root ?? document.body;
	/* The visible copy, made only for a read that uses it: a plain text read takes the live text. */
	let shown = null;
	const visible = () => (shown ??= visibleCopy(body));
	const inert = document.implementation.createHTMLDocument('');
	let html = null;
	if (mainContent) {
		const clone = document.implementation.createHTMLDocument(document.title);
		clone.body.replaceWith(clone.importNode(visible(), true));
		/* Readability turns every h1 into an h2: mark them to turn back. */
		const pageHeadings = [...clone.querySelectorAll('h1')].map(heading => {
			heading.setAttribute('data-bb-h1', '');
			return heading.textContent.replace(/\s+/g, ' ').trim();
		});
		let article = null;
		try {
			article = new Readability(clone).parse();
		} catch {
			article = null;
		}
		if (article && article.content) {
			/* An inert document: markup parsed there loads nothing, runs nothing. */
			const content = inert.createElement('div');
			content.innerHTML = article.content;
			for (const demoted of content.querySelectorAll('[data-bb-h1]')) {
				const heading = inert.createElement('h1');
				heading.append(...demoted.childNodes);
				demoted.replaceWith(heading);
			}
			if (article.title)
				title = article.title;
			/*
			 * Readability takes out the heading that repeats the title: the
			 * content starts with it again, in the page's own words (of the
			 * h1s mostly made of the title's words, the one sharing most),
			 * else as the title.
			 */
			if (content.querySelector('h1') === null && title.trim() !== '') {
				const words = text => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
				const titleWords = new Set(words(title));
				let best = null, bestShared = 0;
				for (const text of pageHeadings) {
					const own = words(text);
					const shared = own.filter(w => titleWords.has(w)).length;
					if (shared / own.length >= 0.75 && shared > bestShared) {
						best = text;
						bestShared = shared;
					}
				}
				const heading = inert.createElement('h1');
				heading.textContent = best ?? title.trim();
				(content.firstElementChild ?? content).prepend(heading);
			}
			html = content.innerHTML;
		} else {
			note = 'No main article was found, so this is the whole page.';
		}
	}
	if (html === null && format !== 'text')
		html = root === null && format === 'html' ? `<html>${document.head.outerHTML}${visible().outerHTML}</html>` : visible().outerHTML;
	let text;
	if (format === 'html') {
		text = html;
	} else if (format === 'text') {
		if (!mainContent || note !== '') {
			text = body.innerText ?? visible().textContent;
		} else {
			const div = inert.createElement('div');
			div.innerHTML = html;
			for (const block of div.querySelectorAll('p, h1, h2, h3, h4, h5, h6, li, pre, blockquote, tr, br, div'))
				block.append('\n');
			text = div.textContent.replace(/[ \t]+/g, ' ').replace(/\n\s*\n\s*/g, '\n\n');
		}
		text = text.trim();
	} else {
		const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
		service.remove(['script', 'style', 'noscript', 'template']);
		text = service.turndown(html).trim();
	}
	return { text, title, url: location.href, note };
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const pageContentActions = {
	get_page_content: {
		async run(params, context) {
			const { tab, element } = context;
			const format = params.format ?? 'markdown';
			if (element !== undefined && typeof params.selector === 'string')
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'Pass ref or selector, not both.');
			const options = { format, selector: params.selector, mainContent: params.main_content === true };
			const needs = contentNeeds(options);
			const out = element !== undefined ?
			    await runOnElement(context, readContent, [options], { needs }) :
			    (await runInPage(tab, { frameIds: [0] }, readContent, [null, options], { needs }))[0]?.result;
			if (out === undefined || out === null)
				throw new BridgeError(ErrorCode.INTERNAL,
				    `The page in tab ${tab.id} changed while it was being read (it navigated). Call get_page_content again once it has loaded.`);
			if (out.badSelector !== undefined)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, `"${params.selector}" is not a valid CSS selector: ${out.badSelector}`);
			if (out.noMatch)
				throw new BridgeError(ErrorCode.ELEMENT_NOT_FOUND,
				    `No element matches the selector "${params.selector}" in tab ${tab.id}. Check it, or read the whole page without selector.`);
			const cut = contentText(out.text, out.note, params.max_chars);
			return {
				content: [{ type: 'text', text: cut.text }],
				structuredContent: {
					tab_id: tab.id, url: out.url, title: out.title, format,
					truncated: cut.truncated, total_chars: cut.total,
				},
			};
		},
	},
};
