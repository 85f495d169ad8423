/**
 * Which pages the tools may open or read. Web pages only, by default:
 * http(s), plus about:blank, data: and blob: pages, which reach nothing
 * local. file: pages are refused unless the user allowed them
 * (`allow_file_urls` in the host's config.json), and even then not under
 * the host's own directories (its token, its runtime file). Browser and
 * extension pages (chrome:, chrome-extension:, devtools:, view-source:,
 * ...) are always refused: they hold settings, keys and other extensions'
 * data, and a page that steered the agent there could read them.
 * @module url-policy
 */

import { BridgeError, ErrorCode } from './errors.js';

/** Schemes that are always fine. */
const WEB_SCHEMES = new Set(['http:', 'https:', 'data:', 'blob:']);
/** Schemes of the browser's own pages and of extensions. */
const BROWSER_SCHEMES = new Set(['chrome:', 'chrome-extension:', 'chrome-untrusted:', 'devtools:', 'view-source:',
	'edge:', 'brave:', 'opera:', 'vivaldi:', 'chrome-search:', 'extension:', 'moz-extension:']);

/**
 * What the host allows, from its welcome.
 * @typedef {object} UrlPolicy
 * @property {boolean} allowFileUrls
 * @property {string[]} protectedDirs absolute directories never opened, even with allowFileUrls
 */

/**
 * The policy a welcome gives (none yet: the strict default).
 * @param {object|undefined} welcome
 * @returns {UrlPolicy}
 */
export function urlPolicy(welcome) {
	return {
		allowFileUrls: welcome?.allow_file_urls === true,
		protectedDirs: Array.isArray(welcome?.protected_dirs) ? welcome.protected_dirs.filter(d => typeof d === 'string' && d.startsWith('/')) : [],
	};
}

/**
 * Why a URL may not be opened or read, or null when it may.
 * @param {string} text
 * @param {UrlPolicy} policy
 * @returns {string|null}
 */
export function urlRefusal(text, policy) {
	let url;
	try {
		url = new URL(text);
	} catch {
		return null;	/* not a URL: the callers' own checks say so */
	}
	if (WEB_SCHEMES.has(url.protocol))
		return null;
	if (url.protocol === 'about:')
		return url.pathname === 'blank' || url.pathname === 'srcdoc' ? null :
		    `${url.href} is a browser page, which the tools do not open or read.`;
	if (url.protocol === 'file:') {
		if (!policy.allowFileUrls)
			return `${url.href} is a local file, and local files are off: they may hold secrets (the host's token among them). ` +
			    'To allow them, add "allow_file_urls": true to ~/.config/browser-bridge/config.json and restart the browser.';
		const path = decodeURIComponent(url.pathname);
		const dir = policy.protectedDirs.find(d => path === d || path.startsWith(`${d.replace(/\/+$/, '')}/`));
		if (dir !== undefined)
			return `${url.href} is inside ${dir}, the Browser Bridge host's own directory (its token and state), which the tools never open, even with allow_file_urls.`;
		return null;
	}
	const shown = url.href.length > 80 ? `${url.href.slice(0, 79)}…` : url.href;
	const scheme = url.protocol.slice(0, -1);	/* a protocol ends with its one colon */
	if (!BROWSER_SCHEMES.has(url.protocol))
		return `${scheme}: URLs (${shown}) are not supported: the tools open web pages. Use an http(s) URL.`;
	return `${scheme}: pages (${shown}) are browser or extension pages, ` +
	    'which the tools never open or read: they hold settings, keys and other extensions\' data. Use an http(s) page.';
}

/**
 * Throws URL_NOT_ALLOWED when the URL may not be opened or read.
 * @param {string} text
 * @param {UrlPolicy} policy
 * @throws {BridgeError}
 */
export function checkUrlAllowed(text, policy) {
	const refusal = urlRefusal(text, policy);
	if (refusal !== null)
		throw new BridgeError(ErrorCode.URL_NOT_ALLOWED, refusal);
}
