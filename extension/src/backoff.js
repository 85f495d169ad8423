/**
 * Reconnect delays: exponential backoff with a cap and some jitter, so
 * several browsers restarting together do not retry in step.
 * @module backoff
 */

/** First delay in ms. */
export const BACKOFF_INITIAL_MS = 1000;
/** Longest delay in ms. */
export const BACKOFF_MAX_MS = 60000;

/**
 * The delay before reconnect attempt number `attempt` (0 for the first).
 * @param {number} attempt
 * @param {number} [random] a number in [0, 1), for jitter of up to 20%
 * @returns {number} milliseconds
 */
export function backoffDelay(attempt, random = Math.random()) {
	const exponent = Math.min(Math.max(attempt, 0), 16);
	const base = Math.min(BACKOFF_INITIAL_MS * 2 ** exponent, BACKOFF_MAX_MS);
	return Math.round(base * (1 - 0.2 * random));
}
