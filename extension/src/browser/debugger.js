/**
 * chrome.debugger (CDP), used only where no extension API will do: trusted
 * mouse and keyboard input, JavaScript dialogs. Attaches to a tab on demand and detaches after
 * a short idle time. When another debugger holds the tab, or the user
 * dismisses the debugging bar, calls fail fast with DebuggerUnavailable so
 * the caller can fall back or explain; nothing waits forever.
 * @module browser/debugger
 */

/** Detach after this long without a command. */
export const IDLE_DETACH_MS = 15000;
/** What the browser keeps of response bodies while attached: in all, and of one. */
const NETWORK_BUFFER_BYTES = 8 * 1024 * 1024;
const NETWORK_BODY_BYTES = 1024 * 1024;
/** A CDP command that takes longer than this is given up. */
export const COMMAND_TIMEOUT_MS = 10000;
/** After the user closes the debugging bar, leave the tab alone this long. */
export const USER_REFUSAL_MS = 10 * 60 * 1000;

/** The debugger cannot be used on this tab; the message says why. */
export class DebuggerUnavailable extends Error {
	/** @param {string} message */
	constructor(message) {
		super(message);
		this.name = 'DebuggerUnavailable';
	}
}

/** A JavaScript dialog opened on the tab; commands the page blocks are cut short with this. */
export class DialogOpened extends Error {
	/** @param {{type: string, message: string, default_prompt?: string}} dialog */
	constructor(dialog) {
		super(`the page opened a ${dialog.type} dialog`);
		this.name = 'DialogOpened';
		this.dialog = dialog;
	}
}

/** Commands that still work while a dialog blocks the page. */
const DIALOG_SAFE = new Set(['Page.enable', 'Page.handleJavaScriptDialog']);

/**
 * Words for why attaching failed.
 * @param {string} text chrome.debugger's error
 * @returns {string}
 */
export function attachFailureReason(text) {
	if (/already attached/i.test(text))
		return 'another debugger (DevTools or another extension) is attached to the tab';
	if (/Cannot access|Cannot attach|chrome:\/\//i.test(text))
		return 'the browser does not allow debugging this page';
	if (/No tab with given id/i.test(text))
		return 'the tab is gone';
	return text;
}

/** Attachments by tab. */
export class DebuggerPool {
	/** @param {(text: string) => void} [log] */
	constructor(log = () => {}) {
		this.log = log;
		/** @type {Map<number, {ready: Promise<void>, timer: any, page?: Promise<object>}>} */
		this.tabs = new Map();
		/** @type {Map<number, {type: string, message: string, default_prompt?: string, url?: string}>} open dialogs, per tab */
		this.dialogs = new Map();
		/** @type {Map<number, Set<(error: Error) => void>>} rejecters of commands in flight, per tab */
		this.pending = new Map();
		/** @type {Set<{tabId: number, callback: Function}>} who waits for a dialog */
		this.dialogWaiters = new Set();
		/** @type {Set<{tabId: number, method: string, callback: Function}>} who waits for another CDP event */
		this.eventWaiters = new Set();
		/** @type {Set<(tabId: number, method: string, params: object) => void>} who hears every CDP event */
		this.eventListeners = new Set();
		chrome.debugger.onEvent.addListener((source, method, params) => {
			if (source.tabId === undefined)
				return;
			if (method === 'Page.javascriptDialogOpening')
				this.dialogOpened(source.tabId, params);
			else if (method === 'Page.javascriptDialogClosed')
				this.dialogs.delete(source.tabId);
			for (const waiter of [...this.eventWaiters]) {
				if (waiter.tabId === source.tabId && waiter.method === method)
					waiter.callback(params);
			}
			for (const listener of this.eventListeners)
				listener(source.tabId, method, params);
		});
		/** @type {Map<number, string>} why the debugger went away, per tab */
		this.lostReason = new Map();
		/** @type {Map<number, number>} when the user closed the debugging bar, per tab */
		this.refusedAt = new Map();
		/** @type {Map<number, {width: number, height: number, deviceScaleFactor: number}>} set_viewport's size, per tab */
		this.viewports = new Map();
		chrome.debugger.onDetach.addListener((source, reason) => {
			if (source.tabId === undefined)
				return;
			const entry = this.tabs.get(source.tabId);
			if (entry !== undefined) {
				clearTimeout(entry.timer);
				this.tabs.delete(source.tabId);
			}
			this.dialogs.delete(source.tabId);
			this.viewports.delete(source.tabId);	/* the override went with it */
			this.lostReason.set(source.tabId, reason);
			if (reason === 'canceled_by_user')
				this.refusedAt.set(source.tabId, Date.now());
			this.log(`debugger detached from tab ${source.tabId}: ${reason}`);
		});
		chrome.tabs.onRemoved.addListener(tabId => {
			const entry = this.tabs.get(tabId);
			if (entry !== undefined)
				clearTimeout(entry.timer);
			this.tabs.delete(tabId);
			this.dialogs.delete(tabId);
			this.lostReason.delete(tabId);
			this.refusedAt.delete(tabId);
			this.viewports.delete(tabId);
		});
	}

	/**
	 * Attaches to a tab unless attached already.
	 * @param {number} tabId
	 * @returns {Promise<void>}
	 * @throws {DebuggerUnavailable}
	 */
	async attach(tabId) {
		let entry = this.tabs.get(tabId);
		const refused = this.refusedAt.get(tabId);
		if (entry === undefined && refused !== undefined && Date.now() - refused < USER_REFUSAL_MS)
			throw new DebuggerUnavailable('the user closed the debugging bar on this tab');
		if (entry === undefined) {
			const ready = chrome.debugger.attach({ tabId }, '1.3').catch(error => {
				this.tabs.delete(tabId);
				throw new DebuggerUnavailable(attachFailureReason(String(error?.message ?? error)));
			});
			entry = { ready, timer: null };
			this.tabs.set(tabId, entry);
			/* While attached, the browser keeps response bodies for get_network_request (bounded). */
			entry.network = ready.then(() => chrome.debugger.sendCommand({ tabId }, 'Network.enable',
			    { maxTotalBufferSize: NETWORK_BUFFER_BYTES, maxResourceBufferSize: NETWORK_BODY_BYTES }))
			    .catch(() => {});
		}
		await entry.ready;
		await entry.network;
		this.touch(tabId);
	}

	/**
	 * Records a dialog, tells who waits for one, and cuts short the
	 * commands the blocked page would leave hanging.
	 * @param {number} tabId
	 * @param {{type: string, message: string, defaultPrompt?: string, url?: string}} params
	 */
	dialogOpened(tabId, params) {
		const dialog = { type: params.type, message: params.message ?? '' };
		if (params.type === 'prompt')
			dialog.default_prompt = params.defaultPrompt ?? '';
		if (params.url)
			dialog.url = params.url;
		this.dialogs.set(tabId, dialog);
		this.log(`${dialog.type} dialog opened on tab ${tabId}`);
		for (const waiter of [...this.dialogWaiters]) {
			if (waiter.tabId === tabId)
				waiter.callback(dialog);
		}
		const pending = this.pending.get(tabId);
		if (pending !== undefined) {
			this.pending.delete(tabId);
			for (const reject of pending)
				reject(new DialogOpened(dialog));
		}
	}

	/**
	 * Calls back when a dialog opens on a tab.
	 * @param {number} tabId
	 * @param {(dialog: object) => void} callback
	 * @returns {() => void} stops listening
	 */
	onDialog(tabId, callback) {
		const waiter = { tabId, callback };
		this.dialogWaiters.add(waiter);
		return () => this.dialogWaiters.delete(waiter);
	}

	/**
	 * Calls back on each CDP event of a kind from a tab.
	 * @param {number} tabId
	 * @param {string} method such as Input.dragIntercepted
	 * @param {(params: object) => void} callback
	 * @returns {() => void} stops listening
	 */
	onEvent(tabId, method, callback) {
		const waiter = { tabId, method, callback };
		this.eventWaiters.add(waiter);
		return () => this.eventWaiters.delete(waiter);
	}

	/**
	 * Calls back on every CDP event of every tab.
	 * @param {(tabId: number, method: string, params: object) => void} listener
	 */
	onAnyEvent(listener) {
		this.eventListeners.add(listener);
	}

	/**
	 * Attaches and enables Page events, so dialogs of the tab are seen.
	 * @param {number} tabId
	 * @returns {Promise<void>}
	 * @throws {DebuggerUnavailable}
	 */
	async watchDialogs(tabId) {
		await this.attach(tabId);
		const entry = this.tabs.get(tabId);
		if (entry === undefined)
			return;
		if (entry.page === undefined) {
			entry.page = this.send(tabId, 'Page.enable');
			entry.page.catch(() => {
				if (this.tabs.get(tabId) === entry)
					entry.page = undefined;
			});
		}
		await entry.page;
	}

	/**
	 * Gives a tab's page a viewport of its own size (CSS pixels) and device
	 * scale factor (0: the screen's), or with null the window's own again.
	 * The size holds while the debugger stays attached, which it then does.
	 * @param {number} tabId
	 * @param {{width: number, height: number, deviceScaleFactor: number}|null} size
	 * @throws {DebuggerUnavailable}
	 */
	async setViewport(tabId, size) {
		if (size === null) {
			this.viewports.delete(tabId);
			await this.send(tabId, 'Emulation.clearDeviceMetricsOverride');
			return;
		}
		await this.send(tabId, 'Emulation.setDeviceMetricsOverride', { ...size, mobile: false });
		this.viewports.set(tabId, size);
	}

	/**
	 * Restarts a tab's idle timer.
	 * @param {number} tabId
	 */
	touch(tabId) {
		const entry = this.tabs.get(tabId);
		if (entry === undefined)
			return;
		clearTimeout(entry.timer);
		/*
		 * An open dialog keeps the tab attached, so handle_dialog can answer
		 * it; so does a viewport size, which ends with the debugger.
		 */
		entry.timer = setTimeout(() => this.dialogs.has(tabId) || this.viewports.has(tabId) ?
		    this.touch(tabId) : this.detach(tabId), IDLE_DETACH_MS);
	}

	/**
	 * Detaches from a tab.
	 * @param {number} tabId
	 */
	async detach(tabId) {
		const entry = this.tabs.get(tabId);
		if (entry === undefined)
			return;
		clearTimeout(entry.timer);
		this.tabs.delete(tabId);
		try {
			await entry.ready;
			await chrome.debugger.detach({ tabId });
		} catch {
			/* already detached */
		}
	}

	/**
	 * Sends one CDP command to a tab, attaching first.
	 * @param {number} tabId
	 * @param {string} method
	 * @param {object} [params]
	 * @returns {Promise<object>}
	 * @throws {DebuggerUnavailable} when attaching fails, the debugger goes away, or the command hangs
	 * @throws {DialogOpened} when a dialog blocks the page (open already, or opening while the command waits)
	 */
	async send(tabId, method, params = {}) {
		await this.attach(tabId);
		const safe = DIALOG_SAFE.has(method);
		if (!safe && this.dialogs.has(tabId))
			throw new DialogOpened(this.dialogs.get(tabId));
		let timer, cut;
		const timeout = new Promise((resolve, reject) => {
			timer = setTimeout(() => reject(new DebuggerUnavailable(
			    `the page did not take ${method} within ${COMMAND_TIMEOUT_MS} ms`)), COMMAND_TIMEOUT_MS);
			cut = reject;
		});
		if (!safe) {
			if (!this.pending.has(tabId))
				this.pending.set(tabId, new Set());
			this.pending.get(tabId).add(cut);
		}
		try {
			return await Promise.race([chrome.debugger.sendCommand({ tabId }, method, params), timeout]);
		} catch (error) {
			if (error instanceof DebuggerUnavailable || error instanceof DialogOpened)
				throw error;
			const text = String(error?.message ?? error);
			if (/not attached|Detached|No tab/i.test(text)) {
				this.tabs.delete(tabId);
				const reason = this.lostReason.get(tabId);
				throw new DebuggerUnavailable(reason === 'canceled_by_user' ?
				    'the user closed the debugging bar' : `the debugger was detached (${reason ?? text})`);
			}
			throw error;
		} finally {
			clearTimeout(timer);
			this.pending.get(tabId)?.delete(cut);
			if (this.pending.get(tabId)?.size === 0)
				this.pending.delete(tabId);
			this.touch(tabId);
		}
	}
}
