/**
 * wait_for: waits for one condition (text appears or goes, a selector or
 * ref reaches a state, the URL matches, the network is idle, a delay).
 * Page conditions are checked in the page, in short rounds: each round
 * watches the document with a MutationObserver and a light interval and
 * answers as soon as the condition holds, so a navigation or a cancel is
 * noticed between rounds.
 * @module actions/wait-for
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { IN_PAGE_SCRIPT, PAGE_ANSWER_MS, runInPage } from '../browser/page-channel.js';
import { getTab } from '../browser/tabs.js';
import { sleep } from '../sleep.js';
import { DEFAULT_WAIT_MS, describeCondition, urlMatcher, waitCondition } from '../wait-conditions.js';

/** One round in the page lasts at most this long. */
const ROUND_MS = 400;
/** How often the URL is read. */
const URL_POLL_MS = 100;

/**
 * Page function: waits up to maxMs for a condition in this frame.
 * @param {{kind: string, value: string, state?: string, localId?: number}} c
 * @param {number} maxMs
 * @returns {Promise<{met: boolean, seen: string, error?: {code: string, message: string}}>}
 */
function pageWait(c, maxMs) {
	const norm = s => s.replace(/\s+/g, ' ').trim().toLowerCase();
	const visible = el => {
		if (!el.isConnected)
			return false;
		if (typeof el.checkVisibility === 'function' &&
		    !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }))
			return false;
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0;
	};
	const check = () => {
		if (c.kind === 'text' || c.kind === 'text_gone') {
			const text = norm(document.body?.innerText ?? document.documentElement?.innerText ?? '');
			const has = text.includes(norm(c.value));
			return { met: c.kind === 'text' ? has : !has,
			    seen: has ? 'the text is on the page' : `the page shows ${JSON.stringify(text.slice(0, 160))}${text.length > 160 ? '…' : ''}` };
		}
		let elements;
		if (c.kind === 'selector') {
			try {
				elements = [...document.querySelectorAll(c.value)];
			} catch (e) {
				return { met: false, seen: '', error: { code: 'INVALID_ARGUMENT',
				    message: `selector ${JSON.stringify(c.value)} is not valid CSS: ${e.message}` } };
			}
		} else {
			const el = globalThis.__browserBridgePage?.element?.(c.localId) ?? null;
			elements = el === null ? [] : [el];
		}
		const shown = elements.filter(visible).length;
		const met = c.state === 'attached' ? elements.length > 0 : c.state === 'detached' ? elements.length === 0 :
		    c.state === 'visible' ? shown > 0 : shown === 0;
		const seen = c.kind === 'ref' ?
		    (elements.length === 0 ? 'it is not on the page' : shown > 0 ? 'it is visible' : 'it is on the page but hidden') :
		    `${elements.length} element${elements.length === 1 ? '' : 's'} match${elements.length === 1 ? 'es' : ''}, ${shown} visible`;
		return { met, seen };
	};
	return new Promise(resolve => {
		let last = check();
		if (last.met || last.error) {
			resolve(last);
			return;
		}
		let pending = null;
		const done = value => {
			observer.disconnect();
			clearInterval(interval);
			clearTimeout(timer);
			clearTimeout(pending);
			resolve(value);
		};
		const recheck = () => {
			pending = null;
			last = check();
			if (last.met || last.error)
				done(last);
		};
		const observer = new MutationObserver(() => {
			if (pending === null)
				pending = setTimeout(recheck, 30);
		});
		observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
		/* Styles and layout change without mutations (hover, media queries, animations). */
		const interval = setInterval(recheck, 100);
		const timer = setTimeout(() => done(last), maxMs);
	});
}

/**
 * One round of a page condition in a tab.
 * @param {chrome.tabs.Tab} tab
 * @param {object} target chrome.scripting target minus tabId
 * @param {object} condition
 * @param {number} maxMs
 * @returns {Promise<Array<{met: boolean, seen: string, error?: object}>|null>} null when the ref's document is gone
 */
async function round(tab, target, condition, maxMs) {
	/* Only a ref needs the in-page script (to find its element). */
	const needs = condition.kind === 'ref' ? [IN_PAGE_SCRIPT] : [];
	const answers = await runInPage(tab, target, pageWait, [condition, maxMs], { needs, timeoutMs: maxMs + PAGE_ANSWER_MS });
	const results = answers.map(a => a.result).filter(r => r !== null && r !== undefined);
	/* A gone document ends a ref's wait; a frame swapped by a navigation is read again next round. */
	return target.documentIds !== undefined && results.length === 0 ? null : results;
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const waitActions = {
	wait_for: {
		async run(params, context) {
			const { tab, element, signal, services } = context;
			const condition = waitCondition(params);
			const timeout = params.timeout_ms ?? DEFAULT_WAIT_MS;
			const start = Date.now();
			const deadline = Math.min(start + timeout, context.deadline - 50);
			const what = describeCondition(condition);
			const waited = () => Date.now() - start;
			const done = (seen, extra = {}) => ({
				content: [{ type: 'text', text: `Waited ${waited()} ms: ${seen}.` }],
				structuredContent: { condition: condition.kind, waited_ms: waited(), ...extra },
			});
			const timedOut = seen => new BridgeError(ErrorCode.TIMEOUT,
			    `Waited ${timeout} ms for ${what} in tab ${tab.id}, but ${seen}. ` +
			    'Check the condition (get_browser_state shows the page), or raise timeout_ms.');

			if (condition.kind === 'delay_ms') {
				if (condition.value > timeout)
					throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
					    `delay_ms ${condition.value} is longer than timeout_ms ${timeout}: raise timeout_ms to at least ${condition.value}.`);
				await sleep(condition.value, signal);
				return done(`the delay of ${condition.value} ms passed`);
			}
			if (condition.kind === 'network_idle') {
				try {
					await services.network.waitIdle(tab.id, { signal, deadline });
				} catch (error) {
					if (error instanceof BridgeError && error.code === ErrorCode.TIMEOUT) {
						const open = services.network.entry(tab.id).inflight.size;
						throw timedOut(`${open} request${open === 1 ? ' was' : 's were'} still open`);
					}
					throw error;
				}
				return done('the network is idle (no request for 500 ms)');
			}
			if (condition.kind === 'url') {
				const matches = urlMatcher(condition.value);
				let url = '';
				for (;;) {
					signal.throwIfAborted();
					try {
						const t = await getTab(tab.id);
						url = t.url || t.pendingUrl || '';
					} catch {
						throw new BridgeError(ErrorCode.TAB_NOT_FOUND, `Tab ${tab.id} closed while waiting for ${what}.`);
					}
					if (matches(url))
						return done(`the URL is ${url}`, { url });
					if (Date.now() >= deadline)
						throw timedOut(`the URL is still ${url}`);
					await sleep(Math.min(URL_POLL_MS, Math.max(deadline - Date.now(), 1)), signal);
				}
			}
			/* Text, selector or ref: rounds in the page. */
			const pageCondition = { kind: condition.kind, value: condition.value, state: condition.state };
			let target = { frameIds: [0] };
			if (condition.kind === 'text' || condition.kind === 'text_gone')
				target = { allFrames: true };
			if (condition.kind === 'ref') {
				pageCondition.localId = element.localId;
				pageCondition.value = element.ref;
				target = { documentIds: [element.documentId] };
			}
			let seen = 'nothing could be read from the page';
			for (;;) {
				signal.throwIfAborted();
				const left = deadline - Date.now();
				const results = await round(tab, target, pageCondition, Math.max(Math.min(ROUND_MS, left), 0));
				signal.throwIfAborted();
				if (results === null) {
					/* The ref's document is gone. */
					if (condition.state === 'detached' || condition.state === 'hidden')
						return done(`${element.ref} is gone (its page changed)`, { ref: element.ref, state: condition.state });
					services.refs.expire(element.ref, 'the page changed since that state was read');
					throw new BridgeError(ErrorCode.STALE_REF,
					    `Element ${element.ref} is no longer on the page: the page changed since that state was read. Call get_browser_state to get fresh refs.`);
				}
				const failed = results.find(r => r.error);
				if (failed)
					throw new BridgeError(failed.error.code, failed.error.message);
				if (results.length > 0) {
					const met = condition.kind === 'text_gone' ? results.every(r => r.met) : results.some(r => r.met);
					seen = (results.find(r => (condition.kind === 'text_gone' ? !r.met : true)) ?? results[0]).seen;
					if (met) {
						const extra = condition.kind === 'selector' ? { selector: condition.value, state: condition.state } :
						    condition.kind === 'ref' ? { ref: element.ref, state: condition.state } : { text: condition.value };
						const words = condition.kind === 'text' ? `the text ${JSON.stringify(condition.value)} is on the page` :
						    condition.kind === 'text_gone' ? `the text ${JSON.stringify(condition.value)} is gone` :
						    `${condition.kind === 'ref' ? element.ref : JSON.stringify(condition.value)} is ${condition.state}`;
						return done(words, extra);
					}
				}
				if (Date.now() >= deadline)
					throw timedOut(seen);
				if (results.length === 0)
					await sleep(Math.min(100, Math.max(deadline - Date.now(), 1)), signal);
			}
		},
	},
};
