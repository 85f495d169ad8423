/**
 * The person's control over what drives their browser: the pause switch
 * ("Pause all agent control" in the popup), the last actions the tools
 * took, the toolbar badge that shows how things stand, and the mark on a
 * tab an MCP client is acting in.
 *
 * The switch is kept in chrome.storage.local, so it holds across service
 * worker and browser restarts; the actions are kept in
 * chrome.storage.session, so the popup shows them after a service worker
 * restart and they go when the browser closes.
 * @module control
 */

import { BridgeError, ErrorCode } from './errors.js';

/** How many actions the popup shows. */
export const ACTIVITY_MAX = 20;
/** Where the switch and the actions are stored. */
export const PAUSED_KEY = 'paused';
export const ACTIVITY_KEY = 'activity';
/** Methods that run while paused although they are not read-only: they stop work. */
export const ALLOWED_WHILE_PAUSED = new Set(['stop_task']);
/** A tab an MCP client acts in stays marked this long after its last action. */
export const MARK_MS = 10000;
/**
 * The busy badge stays this long after the last action ends: a run of
 * calls sets the badge once, not twice per call (each change is three
 * browser calls, a few milliseconds of every short call on a busy machine,
 * for a flash nobody could see).
 */
export const BUSY_LINGER_MS = 1000;
/** The mark's tab group colour. */
const MARK_COLOR = 'purple';

/**
 * The badge for each state: text (at most 4 characters) and colour; the
 * approval badge shows how many clients wait instead of its text.
 * @type {Record<string, {text: string, color: string, title: string}>}
 */
export const BADGES = Object.freeze({
	approval: { text: '1', color: '#dc2626', title: 'Browser Bridge: a client asks for access: open this popup to review it' },
	paused: { text: 'II', color: '#b45309', title: 'Browser Bridge: agent control paused' },
	busy: { text: 'run', color: '#1d4ed8', title: 'Browser Bridge: an agent is acting' },
	connected: { text: 'on', color: '#15803d', title: 'Browser Bridge: connected' },
	disconnected: { text: 'off', color: '#6b7280', title: 'Browser Bridge: not connected to the host' },
});

/**
 * One action the tools took.
 * @typedef {object} ActivityEntry
 * @property {number} time when it started (ms since the epoch)
 * @property {string} who "MCP client", or the task that acted ("task t3")
 * @property {string} tool the method
 * @property {number} [tab] the tab it acted in
 * @property {string} outcome "ok", "running", or the error code
 * @property {number} [ms] how long it took
 */

/** The pause switch, the recent actions and the badge. */
export class PersonControl {
	/**
	 * @param {object} options
	 * @param {chrome.storage.StorageArea} options.local keeps the switch
	 * @param {chrome.storage.StorageArea} options.session keeps the actions
	 * @param {typeof chrome.action} [options.action] the toolbar button (absent in tests)
	 * @param {{tabs: typeof chrome.tabs, tabGroups: typeof chrome.tabGroups}} [options.browser] for the mark on a tab
	 * @param {(change: {paused: boolean, activity: ActivityEntry[]}) => void} [options.onChange] tells an open popup
	 * @param {() => number} [options.now]
	 * @param {(ms: number, onTime: () => void) => () => void} [options.timer] starts a timer; returns its cancel
	 */
	constructor({ local, session, action, browser, onChange = () => {}, now = Date.now, timer }) {
		this.local = local;
		this.session = session;
		this.action = action;
		this.browser = browser;
		this.timer = timer ?? ((ms, onTime) => {
			const id = setTimeout(onTime, ms);
			return () => clearTimeout(id);
		});
		/** tab id -> {groupId, cancel}: tabs marked as acted in */
		this.marks = new Map();
		this.onChange = onChange;
		this.now = now;
		this.paused = false;
		/** @type {ActivityEntry[]} newest first */
		this.activity = [];
		this.running = 0;
		/** Cancels the busy badge's linger after the last action, or null when none lingers. */
		this.lingering = null;
		this.connection = 'disconnected';
		/** How many MCP clients wait for the person's approval (client-approvals.js). */
		this.awaiting = 0;
		/** The badge state shown last: each action would otherwise set it twice over. */
		this.shownBadge = null;
		this.saveTimer = null;
		/** Resolves once the stored switch and actions are loaded. */
		this.ready = Promise.all([
			local.get(PAUSED_KEY).then(stored => {
				this.paused = stored?.[PAUSED_KEY] === true;
			}),
			session.get(ACTIVITY_KEY).then(stored => {
				if (Array.isArray(stored?.[ACTIVITY_KEY]))
					this.activity = stored[ACTIVITY_KEY].slice(0, ACTIVITY_MAX);
			}),
		]).catch(() => {}).then(() => this.showBadge());
	}

	/**
	 * Turns the switch; kept before it answers.
	 * @param {boolean} paused
	 */
	async setPaused(paused) {
		await this.ready;
		this.paused = paused === true;
		await this.local.set({ [PAUSED_KEY]: this.paused });
		this.showBadge();
		this.changed();
	}

	/**
	 * Refuses a call while paused, unless it only reads or stops work.
	 * @param {string} method
	 * @param {boolean} readOnly the catalogue's readOnlyHint
	 * @throws {BridgeError} PAUSED_BY_USER
	 */
	check(method, readOnly) {
		if (!this.paused || readOnly || ALLOWED_WHILE_PAUSED.has(method))
			return;
		throw new BridgeError(ErrorCode.PAUSED_BY_USER,
		    `The person using this browser has paused all agent control (Browser Bridge's toolbar popup), so ${method} did not run. ` +
		    'Reading pages still works. Ask them to resume, then retry; do not try to work around the pause.');
	}

	/**
	 * Records an action as it starts; call the returned function when it
	 * ends, with its outcome and the tab it acted in once that is known.
	 * @param {{who: string, tool: string, tab?: number}} action
	 * @returns {(outcome: string, tab?: number) => void}
	 */
	begin({ who, tool, tab }) {
		/** @type {ActivityEntry} */
		const entry = { time: this.now(), who, tool, outcome: 'running' };
		if (tab !== undefined)
			entry.tab = tab;
		this.activity.unshift(entry);
		this.activity.length = Math.min(this.activity.length, ACTIVITY_MAX);
		this.running++;
		this.showBadge();
		this.changed();
		let ended = false;
		return (outcome, tab) => {
			if (ended)
				return;
			ended = true;
			entry.outcome = outcome;
			if (tab !== undefined)
				entry.tab = tab;
			entry.ms = this.now() - entry.time;
			this.running--;
			if (this.running === 0)
				this.linger();
			this.changed();
		};
	}

	/**
	 * Renames who took the recent actions: a task's name once it masks a
	 * secret the task's words hold (task-manager.js), in the actions
	 * already listed too, shown and kept as any change is.
	 * @param {string} before the name the actions have
	 * @param {string} after the name they get
	 */
	relabel(before, after) {
		const renamed = this.activity.filter(entry => entry.who === before);
		renamed.forEach(entry => {
			entry.who = after;
		});
		if (renamed.length > 0)
			this.changed();
	}

	/**
	 * Marks a tab an MCP client acted in, so the person sees where it
	 * works: a tab in no group goes into a group titled "Agent: <client>"
	 * until MARK_MS after the last action, then leaves it. Tabs already in
	 * a group (the person's own, or an agents' task's) are left as they
	 * are. A browser without tab groups gets no mark.
	 * @param {number} tabId
	 * @param {string} who the client, as the recent actions name it
	 */
	async markTab(tabId, who) {
		if (this.browser === undefined)
			return;
		const { tabs, tabGroups } = this.browser;
		try {
			let mark = this.marks.get(tabId);
			if (mark === undefined) {
				const tab = await tabs.get(tabId);
				if (tab.groupId !== undefined && tab.groupId !== -1)
					return;
				const groupId = await tabs.group({ tabIds: [tabId] });
				await tabGroups.update(groupId, { title: `Agent: ${who}`.slice(0, 40), color: MARK_COLOR });
				mark = { groupId, cancel: () => {} };
				this.marks.set(tabId, mark);
			}
			mark.cancel();
			mark.cancel = this.timer(MARK_MS, () => this.unmarkTab(tabId));
		} catch {
			/* the tab closed, or groups are not available: no mark */
		}
	}

	/**
	 * Takes a tab out of its mark's group (if it is still there).
	 * @param {number} tabId
	 */
	async unmarkTab(tabId) {
		const mark = this.marks.get(tabId);
		if (mark === undefined)
			return;
		this.marks.delete(tabId);
		mark.cancel();
		try {
			const tab = await this.browser.tabs.get(tabId);
			if (tab.groupId === mark.groupId)
				await this.browser.tabs.ungroup([tabId]);
		} catch {
			/* the tab closed */
		}
	}

	/**
	 * Follows the connection to the host, for the badge.
	 * @param {string} state connected, connecting, disconnected or incompatible
	 */
	setConnection(state) {
		this.connection = state === 'connected' ? 'connected' : 'disconnected';
		this.showBadge();
	}

	/**
	 * Follows the clients waiting for approval, for the badge.
	 * @param {number} count
	 */
	setAwaiting(count) {
		this.awaiting = count;
		this.showBadge();
	}

	/** @returns {{paused: boolean, activity: ActivityEntry[]}} what the popup shows */
	snapshot() {
		return { paused: this.paused, activity: this.activity.map(entry => ({ ...entry })) };
	}

	/** The badge's state: a client waiting for approval first, then paused, then busy, then the connection. */
	badgeState() {
		if (this.awaiting > 0)
			return 'approval';
		if (this.paused)
			return 'paused';
		if ((this.running > 0 || this.lingering !== null) && this.connection === 'connected')
			return 'busy';
		return this.connection;
	}

	/** Keeps the busy badge BUSY_LINGER_MS after the last action ends, then shows how things stand. */
	linger() {
		this.lingering?.();
		this.lingering = this.timer(BUSY_LINGER_MS, () => {
			this.lingering = null;
			this.showBadge();
		});
	}

	/** Shows the badge when its state changed; a browser without chrome.action is left alone. */
	showBadge() {
		const state = this.badgeState();
		const text = state === 'approval' ? String(Math.min(this.awaiting, 999)) : BADGES[state].text;
		if (this.action === undefined || `${state} ${text}` === this.shownBadge)
			return;
		this.shownBadge = `${state} ${text}`;
		const badge = BADGES[state];
		this.action.setBadgeText({ text }).catch(() => {});
		this.action.setBadgeBackgroundColor({ color: badge.color }).catch(() => {});
		this.action.setTitle({ title: badge.title }).catch(() => {});
	}

	/** Tells the popup, and keeps the actions (at most once a second). */
	changed() {
		this.onChange(this.snapshot());
		if (this.saveTimer !== null)
			return;
		this.saveTimer = setTimeout(() => {
			this.saveTimer = null;
			this.session.set({ [ACTIVITY_KEY]: this.activity }).catch(() => {});
		}, 1000);
	}
}
