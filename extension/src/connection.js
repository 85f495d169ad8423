/**
 * The native-messaging connection to the host: opens the port, says hello,
 * waits for the welcome, reassembles chunked messages, and reconnects with
 * backoff when the host goes away (docs/protocol.md, sections 1 and 2).
 * @module connection
 */

import { ChunkAssembler } from './chunks.js';
import { backoffDelay } from './backoff.js';
import { describeDisconnect } from './status.js';

/** The protocol this extension speaks. */
export const PROTOCOL_VERSION = 1;
/** Give up on a host that does not answer the hello within this. */
export const WELCOME_TIMEOUT_MS = 10000;
/** Alarm that retries when the service worker slept through a timer. */
const RECONNECT_ALARM = 'browser-bridge-reconnect';

/**
 * What the popup shows.
 * @typedef {object} ConnectionStatus
 * @property {'connecting'|'connected'|'disconnected'|'incompatible'} state
 * @property {string} [mcpUrl]
 * @property {number} [port]
 * @property {boolean} [auth]
 * @property {boolean} [oauth] clients may get keys of their own (the welcome's oauth)
 * @property {string} [token]
 * @property {string} [hostVersion]
 * @property {string} [portNote]
 * @property {boolean} [portUnsafe] a program that is not Browser Bridge holds the configured port
 * @property {{summary: string, detail: string, at: number}} [lastError]
 * @property {number} [retryAt] Date.now() value of the next attempt
 */

/** One connection to the host, kept open. */
export class HostConnection {
	/**
	 * @param {object} options
	 * @param {string} options.name native-messaging host name
	 * @param {string} options.version the extension's version
	 * @param {string[]} [options.capabilities]
	 * @param {(message: object) => void} options.onMessage every message after the welcome, chunks reassembled
	 * @param {(welcome: object) => void} [options.onConnected]
	 * @param {() => void} [options.onDisconnected]
	 * @param {(status: ConnectionStatus) => void} [options.onStatus]
	 * @param {(text: string) => void} [options.log]
	 */
	constructor(options) {
		this.options = options;
		this.log = options.log ?? (() => {});
		this.port = null;
		this.welcomed = false;
		this.attempt = 0;
		this.retryTimer = null;
		this.welcomeTimer = null;
		this.chunks = new ChunkAssembler();
		/** @type {ConnectionStatus} */
		this.status = { state: 'disconnected' };
		chrome.alarms?.onAlarm.addListener(alarm => {
			if (alarm.name === RECONNECT_ALARM && this.port === null)
				this.connect();
		});
	}

	/**
	 * Updates the status and tells the listener.
	 * @param {Partial<ConnectionStatus>} changes
	 */
	setStatus(changes) {
		this.status = { ...this.status, ...changes };
		this.options.onStatus?.(this.status);
	}

	/** Opens the port and says hello. */
	connect() {
		if (this.port !== null)
			return;
		clearTimeout(this.retryTimer);
		this.retryTimer = null;
		chrome.alarms?.clear(RECONNECT_ALARM);
		this.welcomed = false;
		this.setStatus({ state: 'connecting', retryAt: undefined });
		let port;
		try {
			port = chrome.runtime.connectNative(this.options.name);
		} catch (error) {
			this.onClosed(String(error?.message ?? error));
			return;
		}
		this.port = port;
		port.onMessage.addListener(message => this.onPortMessage(port, message));
		port.onDisconnect.addListener(() => {
			if (this.port !== port)
				return;
			this.onClosed(chrome.runtime.lastError?.message);
		});
		this.welcomeTimer = setTimeout(() => {
			if (this.port === port && !this.welcomed) {
				this.log('the host did not answer the hello; reconnecting');
				this.drop(port, 'The host did not answer the hello in time.');
			}
		}, WELCOME_TIMEOUT_MS);
		port.postMessage({
			type: 'hello', protocol: PROTOCOL_VERSION, version: this.options.version,
			capabilities: this.options.capabilities ?? [],
		});
	}

	/**
	 * Closes a port on purpose and schedules a reconnect.
	 * @param {chrome.runtime.Port} port
	 * @param {string} reason
	 */
	drop(port, reason) {
		try {
			port.disconnect();
		} catch {
			/* already closed */
		}
		if (this.port === port)
			this.onClosed(reason);
	}

	/**
	 * One message from the port.
	 * @param {chrome.runtime.Port} port
	 * @param {object} message
	 */
	onPortMessage(port, message) {
		if (this.port !== port || message === null || typeof message !== 'object')
			return;
		if (message.type === 'chunk') {
			let whole;
			try {
				whole = this.chunks.add(message);
			} catch (error) {
				this.log(`chunk dropped: ${error.message}`);
				return;
			}
			if (whole !== null)
				this.onPortMessage(port, whole);
			return;
		}
		if (message.type === 'welcome') {
			this.onWelcome(port, message);
			return;
		}
		if (!this.welcomed) {
			this.log(`message before the welcome ignored: ${message.type}`);
			return;
		}
		this.options.onMessage(message);
	}

	/**
	 * The host's welcome: connected, or refused for a protocol mismatch.
	 * @param {chrome.runtime.Port} port
	 * @param {object} welcome
	 */
	onWelcome(port, welcome) {
		clearTimeout(this.welcomeTimer);
		if (welcome.error) {
			this.setStatus({
				state: 'incompatible',
				lastError: {
					summary: 'The host and the extension are from different releases.',
					detail: `${welcome.error.message ?? welcome.error.code} Install matching versions, then click Reconnect.`,
					at: Date.now(),
				},
			});
			this.attempt = 16;	/* retry rarely: a person has to update something */
			this.drop(port, null);
			return;
		}
		const first = !this.welcomed;
		this.welcomed = true;
		this.attempt = 0;
		this.setStatus({
			state: 'connected',
			mcpUrl: welcome.mcp_url,
			port: welcome.port,
			auth: welcome.auth !== false,
			oauth: welcome.oauth === true,
			token: typeof welcome.token === 'string' ? welcome.token : undefined,
			hostVersion: welcome.version,
			portNote: welcome.port_note,
			portUnsafe: welcome.port_unsafe === true,
			connectedAt: Date.now(),
		});
		if (first)
			this.options.onConnected?.(welcome);
	}

	/**
	 * The port closed: tell the owner and schedule a reconnect.
	 * @param {string|null|undefined} reason Chrome's error, or ours
	 */
	onClosed(reason) {
		const wasConnected = this.welcomed;
		clearTimeout(this.welcomeTimer);
		this.port = null;
		this.welcomed = false;
		this.chunks.clear();
		if (wasConnected)
			this.options.onDisconnected?.();
		const delay = backoffDelay(this.attempt++);
		const changes = { state: this.status.state === 'incompatible' ? 'incompatible' : 'disconnected', retryAt: Date.now() + delay };
		if (reason !== null) {
			const words = describeDisconnect(reason ?? undefined, { extensionId: chrome.runtime.id, wasConnected });
			changes.lastError = { ...words, at: Date.now() };
		}
		this.setStatus(changes);
		this.log(`disconnected (${reason ?? 'no reason'}); retrying in ${delay} ms`);
		this.retryTimer = setTimeout(() => this.connect(), delay);
		/* Timers die with a sleeping service worker; the alarm does not. */
		chrome.alarms?.create(RECONNECT_ALARM, { delayInMinutes: Math.max(delay / 60000, 0.5) });
	}

	/** Reconnects now (the popup's button). */
	reconnectNow() {
		this.attempt = 0;
		if (this.port !== null) {
			const port = this.port;
			this.port = null;
			try {
				port.disconnect();
			} catch {
				/* closed */
			}
			this.options.onDisconnected?.();
		}
		this.connect();
	}

	/**
	 * Sends a message to the host.
	 * @param {object} message
	 * @returns {boolean} false when not connected
	 */
	send(message) {
		if (this.port === null || !this.welcomed)
			return false;
		try {
			this.port.postMessage(message);
			return true;
		} catch (error) {
			this.log(`send failed: ${error.message}`);
			return false;
		}
	}
}
