/**
 * Errors the extension answers with: a stable code from docs/protocol.md
 * section 6 and a message that says what happened and what to do next.
 * @module errors
 */

/** The stable error codes (docs/protocol.md, section 6). */
export const ErrorCode = Object.freeze({
	INVALID_ARGUMENT: 'INVALID_ARGUMENT',
	TIMEOUT: 'TIMEOUT',
	CANCELLED: 'CANCELLED',
	ELEMENT_NOT_FOUND: 'ELEMENT_NOT_FOUND',
	STALE_REF: 'STALE_REF',
	NOT_INTERACTABLE: 'NOT_INTERACTABLE',
	NOT_EDITABLE: 'NOT_EDITABLE',
	TAB_NOT_FOUND: 'TAB_NOT_FOUND',
	TAB_BUSY: 'TAB_BUSY',
	PAUSED_BY_USER: 'PAUSED_BY_USER',
	TASK_NOT_FOUND: 'TASK_NOT_FOUND',
	URL_NOT_ALLOWED: 'URL_NOT_ALLOWED',
	PROVIDER_NOT_CONFIGURED: 'PROVIDER_NOT_CONFIGURED',
	NAVIGATION_FAILED: 'NAVIGATION_FAILED',
	MESSAGE_TOO_LARGE: 'MESSAGE_TOO_LARGE',
	UNKNOWN_METHOD: 'UNKNOWN_METHOD',
	INTERNAL: 'INTERNAL',
});

/** An error with a protocol code; its message is shown to the agent. */
export class BridgeError extends Error {
	/**
	 * @param {string} code one of ErrorCode
	 * @param {string} message what happened and what to do next
	 */
	constructor(code, message) {
		super(message);
		this.name = 'BridgeError';
		this.code = code;
	}
}

/**
 * Turns anything thrown into a protocol error object {code, message}.
 * Errors that are not BridgeErrors become INTERNAL, keeping their text.
 * @param {unknown} error
 * @returns {{code: string, message: string}}
 */
export function toProtocolError(error) {
	if (error instanceof BridgeError)
		return { code: error.code, message: error.message };
	const text = error instanceof Error ? error.message : String(error);
	return {
		code: ErrorCode.INTERNAL,
		message: `The extension failed unexpectedly: ${text}. ` +
		    'Retry; if it keeps failing, reload the extension in chrome://extensions and report the message.',
	};
}
