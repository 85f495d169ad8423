/**
 * Small waiting helpers that honour an AbortSignal.
 * @module browser/wait
 */

/**
 * Resolves after ms, or rejects with the signal's reason when it aborts.
 * @param {number} ms
 * @param {AbortSignal} [signal]
 * @returns {Promise<void>}
 */
export function sleep(ms, signal) {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) {
			reject(signal.reason);
			return;
		}
		const onAbort = () => {
			clearTimeout(timer);
			reject(signal.reason);
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, Math.max(ms, 0));
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
