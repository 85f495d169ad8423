/**
 * Observes what an action did: did the URL change, did the page navigate,
 * did a new tab open, did the DOM change. Start it before the action,
 * finish it after.
 * @module browser/outcome
 */

import { callInPage } from './page-channel.js';
import { NavigationWatcher, pagePreparer, readyStateReader } from './navigation.js';
import { sleep } from '../sleep.js';

/** A navigation an action causes begins within this long. */
export const NAVIGATION_START_MS = 30;
/** The page counts as settled when its DOM has been still this long... */
export const DOM_QUIET_MS = 25;
/** ...and the requests the action started have finished; at most this long. */
export const SETTLE_CAP_MS = 1000;
/** A page whose word comes back this much later than its wait is on a busy machine (settlePage). */
const LAG_NOTICED_MS = 10;
/** At most this many responses (the latest) are looked for in the page's Resource Timing. */
const AWAITED_MAX = 32;
/** Longest wait for a navigation an action started. */
export const NAVIGATION_SETTLE_MS = 10000;

/**
 * What an action did, as results report it.
 * @typedef {object} Outcome
 * @property {string} url the tab's URL afterwards
 * @property {boolean} url_changed
 * @property {boolean} navigated a new document loaded in the tab
 * @property {boolean} [loading] the new document was still loading
 * @property {Array<{id: number, url: string}>} new_tabs tabs opened meanwhile
 * @property {boolean} dom_changed
 * @property {number} [mutations] DOM mutations seen in the top document
 * @property {string[]} [still] what had not settled when the wait's cap came: "dom", "network"
 */

/** Watches one tab during one action. */
export class OutcomeObserver {
	/**
	 * @param {chrome.tabs.Tab} tab
	 * @param {import('./network.js').NetworkTracker} [network] to wait for the requests the action starts
	 */
	constructor(tab, network) {
		this.tab = tab;
		this.network = network;
		this.startedAt = Date.now();
		this.urlBefore = tab.url ?? '';
		this.navigation = new NavigationWatcher(tab.id);
		this.newTabs = [];
		this.onCreated = created => this.newTabs.push(created);
		chrome.tabs.onCreated.addListener(this.onCreated);
		this.watch = null;
	}

	/**
	 * Starts counting DOM mutations in a document (default: the top one).
	 * @param {string} [documentId] the document the action touches
	 */
	async start(documentId) {
		this.startedAt = Date.now();
		this.watch = await startWatch(this.tab, documentId);
	}

	/**
	 * Waits for the action's effects to settle and reports them. An action
	 * that cannot start a navigation by itself (typing text without a key
	 * such as Enter) passes mayNavigate: false and skips the wait for one
	 * to begin; a navigation that begins anyway is still seen and waited for.
	 * @param {{signal?: AbortSignal, deadline: number, mayNavigate?: boolean}} options
	 * @returns {Promise<Outcome>}
	 */
	async finish({ signal, deadline, mayNavigate = true }) {
		try {
			const until = ms => Math.min(deadline, Date.now() + ms);
			if (mayNavigate)
				await sleep(Math.max(until(NAVIGATION_START_MS) - Date.now(), 0), signal);
			let still = [];
			if (!this.navigating())
				still = await this.settle(signal, until(SETTLE_CAP_MS));
			let loading = false;
			const navigated = this.navigating();
			if (navigated) {
				still = [];
				try {
					await this.navigation.waitFor('domcontentloaded', {
						signal,
						deadline: until(NAVIGATION_SETTLE_MS),
						readyState: readyStateReader(this.tab.id),
						prepare: pagePreparer(this.tab.id),
					});
				} catch (error) {
					if (signal?.aborted)
						throw error;
					loading = true;
				}
			}
			let tab;
			try {
				tab = await chrome.tabs.get(this.tab.id);
			} catch {
				tab = { url: '', closed: true };
			}
			const url = tab.url || tab.pendingUrl || '';
			let mutations = navigated ? undefined : this.settledCount;
			if (this.watch !== null && !navigated && mutations === undefined) {
				try {
					const results = await callInPage(this.tab, { documentIds: [this.watch.documentId] },
					    'watchStop', [this.watch.token]);
					if (results.length > 0 && typeof results[0].result === 'number' && results[0].result >= 0)
						mutations = results[0].result;
				} catch {
					mutations = undefined;
				}
			}
			const newTabs = [];
			for (const created of this.newTabs) {
				let current = created;
				try {
					current = await chrome.tabs.get(created.id);
				} catch {
					continue;
				}
				newTabs.push({ id: current.id, url: current.url || current.pendingUrl || '' });
			}
			/** @type {Outcome} */
			const outcome = {
				url,
				url_changed: url !== this.urlBefore,
				navigated,
				new_tabs: newTabs,
				dom_changed: navigated || (mutations ?? 0) > 0,
			};
			if (mutations !== undefined)
				outcome.mutations = mutations;
			if (loading)
				outcome.loading = true;
			if (still.length > 0)
				outcome.still = still;
			if (tab.closed)
				outcome.tab_closed = true;
			return outcome;
		} finally {
			this.dispose();
		}
	}

	/** Whether a new document started loading in the tab. */
	navigating() {
		const status = this.navigation.status();
		return status.pending || (status.stage > 0 && !status.same);
	}

	/**
	 * Waits, at most until cap, for the page to settle after the action
	 * (settlePage). Returns what had not settled by the cap.
	 * @param {AbortSignal|undefined} signal
	 * @param {number} cap Date.now() value
	 * @returns {Promise<string[]>}
	 */
	async settle(signal, cap) {
		const settled = await settlePage(this.tab, this.network, this.startedAt, this.watch, signal, cap);
		this.watch = settled.watch;
		/* The changes seen up to now, so finishing need not ask again. */
		this.settledCount = settled.count;
		return settled.still;
	}

	/** Removes the listeners. */
	dispose() {
		this.navigation.dispose();
		chrome.tabs.onCreated.removeListener(this.onCreated);
	}
}

/**
 * Starts counting DOM mutations in a document (default: the tab's top
 * one); null when no script runs there. loaded: a page that has just
 * loaded, whose state is likely read next: the page also walks itself
 * once while the watch waits, so that the first read runs warm code, and
 * the settle waits for the short timers it set as it loaded, not only
 * for those set from now on (watchStart in in-page/mutations.js).
 * @param {chrome.tabs.Tab|{id: number}} tab
 * @param {string} [documentId]
 * @param {boolean} [loaded]
 * @returns {Promise<{documentId: string, token: number}|null>}
 */
async function startWatch(tab, documentId, loaded = false) {
	try {
		const where = documentId === undefined ? { frameIds: [0] } : { documentIds: [documentId] };
		const [r] = await callInPage(tab, where, 'watchStart', [loaded]);
		if (r !== undefined && typeof r.result === 'number')
			return { documentId: r.documentId, token: r.result };
	} catch {
		/* a page no script runs in, or one that went away: nothing to watch */
	}
	return null;
}

/**
 * Waits, at most until cap, for a page to settle: the tab's requests
 * that started since `since` done, the responses among them in the
 * watched document's hands (its Resource Timing lists them), its short
 * timers run (watchQuiet), then the document still for DOM_QUIET_MS. A
 * request that starts during the quiet window (a fetch the page makes a
 * moment later) begins another round with a new watch. Ends the watches
 * it waited on.
 * @param {chrome.tabs.Tab|{id: number}} tab
 * @param {import('./network.js').NetworkTracker|undefined} network to wait for requests; undefined waits for the DOM alone
 * @param {number} since Date.now() value
 * @param {{documentId: string, token: number}|null} watch from startWatch
 * @param {AbortSignal|undefined} signal
 * @param {number} cap Date.now() value
 * @returns {Promise<{still: string[], count?: number, watch: {documentId: string, token: number}|null}>}
 *   still: what had not settled ("dom", "network"); count: the changes seen
 */
async function settlePage(tab, network, since, watch, signal, cap) {
	let count;
	for (;;) {
		/* Requests first: what they bring back changes the DOM after they end. */
		const open = network === undefined ? 0 :
		    await network.waitRequestsSince(tab.id, since, { signal, deadline: cap });
		let quiet = true;
		let lag = 0;
		if (watch !== null) {
			try {
				const received = network?.finishedSince(tab.id, since, watch.documentId).slice(-AWAITED_MAX) ?? [];
				const asked = Date.now();
				const results = await callInPage(tab, { documentIds: [watch.documentId] }, 'watchQuiet',
				    [watch.token, DOM_QUIET_MS, Math.max(cap - Date.now(), 0), received], { timeoutMs: SETTLE_CAP_MS + 1000 });
				const answer = results[0]?.result;
				if (typeof answer?.count === 'number')
					count = (count ?? 0) + answer.count;
				quiet = answer?.quiet !== false;
				if (typeof answer?.elapsed === 'number')
					lag = Math.max(0, Date.now() - asked - answer.elapsed);
			} catch {
				quiet = true;
			}
		}
		/*
		 * The page's answer took lag ms more than its wait to reach us; a
		 * request it made at the window's end reaches us about as late (on
		 * a busy machine, tens of ms): give it that long to show before
		 * calling the network settled.
		 */
		if (lag >= LAG_NOTICED_MS && open === 0 && network !== undefined && Date.now() < cap)
			await sleep(Math.min(lag, cap - Date.now()), signal);
		const again = open === 0 && network !== undefined && Date.now() < cap && network.openSince(tab.id, since) > 0;
		if (!again)
			return { still: [...(quiet ? [] : ['dom']), ...(open === 0 ? [] : ['network'])], count, watch };
		if (watch !== null)
			watch = await startWatch(tab, watch.documentId);
	}
}

/**
 * Lets a page that has just loaded settle the way an action's effects do
 * (settlePage), so a view the page renders after its load event (a route
 * resolved by a request, a lazy chunk, a short timer set as it loaded) is
 * there for the next state read.
 * @param {number} tabId
 * @param {object} options
 * @param {import('./network.js').NetworkTracker} [options.network] undefined: wait for the DOM alone
 * @param {number} options.since Date.now() when the navigation started: its requests count
 * @param {string} [options.documentId] the loaded document (default: the top frame's)
 * @param {AbortSignal} [options.signal]
 * @param {number} options.deadline Date.now() value; the wait also stops after SETTLE_CAP_MS
 * @returns {Promise<string[]>} what had not settled: "dom", "network"
 */
export async function settleLoadedPage(tabId, { network, since, documentId, signal, deadline }) {
	const tab = { id: tabId };
	const watch = await startWatch(tab, documentId, true);
	const settled = await settlePage(tab, network, since, watch, signal, Math.min(deadline, Date.now() + SETTLE_CAP_MS));
	return settled.still;
}

/**
 * What had not settled when the cap came, in words for a result.
 * @param {string[]} still "dom", "network"
 * @returns {string}
 */
export function stillNote(still) {
	const what = still.map(s => (s === 'dom' ? 'the page was still changing' : 'requests it started were still open'));
	return `After ${SETTLE_CAP_MS / 1000} s ${what.join(' and ')}: call get_browser_state again to see where it settled.`;
}

/**
 * A sentence about an outcome: "The page navigated to ...", "It opened tab 5 (...)".
 * @param {Outcome} outcome
 * @param {{quiet?: boolean}} [options] quiet: say nothing when nothing else changed (the caller already said what did)
 * @returns {string}
 */
export function describeOutcome(outcome, { quiet = false } = {}) {
	const parts = [];
	if (outcome.tab_closed)
		parts.push('The tab closed.');
	else if (outcome.navigated)
		parts.push(`The page navigated to ${outcome.url}${outcome.loading ? ' (still loading)' : ''}.`);
	else if (outcome.url_changed)
		parts.push(`The URL changed to ${outcome.url} (same page).`);
	else if (outcome.dom_changed)
		parts.push('The page changed.');
	else if (!quiet)
		parts.push('Nothing on the page changed.');
	for (const t of outcome.new_tabs)
		parts.push(`It opened tab ${t.id}${t.url ? ` (${t.url})` : ''}.`);
	if (outcome.still !== undefined)
		parts.push(stillNote(outcome.still));
	return parts.join(' ');
}
