/**
 * The connection status the popup shows, in words a user can act on, and
 * the MCP client configuration it copies. Pure.
 * @module status
 */

/** The native-messaging name of the host. */
export const HOST_NAME = 'org.browserbridge.host';

/**
 * A user-facing explanation of why the port to the host closed.
 * @param {string|undefined} chromeError chrome.runtime.lastError.message
 * @param {{extensionId: string, wasConnected: boolean}} context
 * @returns {{summary: string, detail: string}}
 */
export function describeDisconnect(chromeError, { extensionId, wasConnected }) {
	const text = chromeError ?? '';
	if (/not found/i.test(text))
		return {
			summary: 'The Browser Bridge host is not installed for this browser.',
			detail: 'Install it: run `browser-bridge install` in a terminal (see the README), then click Reconnect. ' +
			    `The host manifest must be named ${HOST_NAME}.json in this browser's NativeMessagingHosts folder.`,
		};
	if (/forbidden/i.test(text))
		return {
			summary: 'The installed host does not allow this extension.',
			detail: `Its manifest must list chrome-extension://${extensionId}/ in allowed_origins. ` +
			    'Run `browser-bridge install` again, then click Reconnect.',
		};
	if (/Failed to start/i.test(text))
		return {
			summary: 'The browser could not start the Browser Bridge host.',
			detail: 'The "path" in its manifest may point to a missing or non-executable file. ' +
			    'Run `browser-bridge install` again, then click Reconnect.',
		};
	if (/exited|communicating/i.test(text) || wasConnected)
		return {
			summary: wasConnected ? 'The Browser Bridge host stopped.' : 'The Browser Bridge host exited at start-up.',
			detail: 'Its log goes to the browser\'s standard error, or to the file set by "log" in ' +
			    '~/.config/browser-bridge/config.json. Check it, then click Reconnect (it also retries by itself). ' +
			    `Chrome said: ${text || 'the port closed'}.`,
		};
	return {
		summary: 'The connection to the Browser Bridge host closed.',
		detail: `Chrome said: ${text || 'nothing'}. Click Reconnect; if it keeps failing, run \`browser-bridge install\` again.`,
	};
}

/**
 * The JSON an MCP client needs to reach the host (Claude Code, Cursor and
 * others read this shape). With OAuth on it holds no key: the client asks
 * for one of its own and the person approves it in the popup; otherwise
 * (or for a client without OAuth) the owner key's header.
 * @param {{mcpUrl: string, auth: boolean, token?: string, oauth?: boolean}} options
 * @returns {string}
 */
export function clientConfig({ mcpUrl, auth, token, oauth = false }) {
	const server = { type: 'http', url: mcpUrl };
	if (auth && !oauth)
		server.headers = { Authorization: `Bearer ${token ?? '<run: browser-bridge token>'}` };
	return JSON.stringify({ mcpServers: { 'browser-bridge': server } }, null, 2);
}
