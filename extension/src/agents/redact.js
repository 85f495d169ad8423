/**
 * Keeps secrets out of what the extension shows and keeps: API keys out of
 * every text the agents produce (errors, progress, logs), replaced wherever
 * they appear, with anything that looks like a bearer credential; and what
 * is typed into a secret field, shown as a mask of its length (mask).
 * @module agents/redact
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Replaces each secret (and bearer credentials) in a text.
 * @param {string} text
 * @param {string[]} secrets keys to hide; short or empty ones are ignored
 * @returns {string}
 */
export function redact(text, secrets) {
	let out = String(text);
	for (const secret of secrets)
		if (typeof secret === 'string' && secret.length >= 4)
			out = out.split(secret).join(REDACTED);
	return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`)
	    .replace(/\b(x-api-key|x-goog-api-key|api[_-]?key)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{8,}/gi, `$1$2${REDACTED}`);
}

/**
 * A secret's stand-in: a dot per character, as the page's password fields
 * show it (docs/security.md).
 * @param {string} text
 * @returns {string}
 */
export function mask(text) {
	return '•'.repeat(text.length);
}
