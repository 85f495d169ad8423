/**
 * Keeps API keys out of every text the agents produce: errors, progress,
 * logs. A key is replaced wherever it appears, and so is anything that
 * looks like a bearer credential.
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
