/**
 * Small waiting helpers that honour an AbortSignal; pure (timers only),
 * so every layer may use them.
 * @module sleep
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

/**
 * Resolves as promise does, or rejects when the signal aborts first, with
 * what reason makes of the signal's reason.
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal} signal
 * @param {(reason: unknown) => unknown} [reason]
 * @returns {Promise<T>}
 */
export function untilAborted(promise, signal, reason = why => why) {
	return new Promise((resolve, reject) => {
		const stop = () => reject(reason(signal.reason));
		if (signal.aborted) {
			stop();
			return;
		}
		signal.addEventListener('abort', stop, { once: true });
		promise.then(value => {
			signal.removeEventListener('abort', stop);
			resolve(value);
		}, error => {
			signal.removeEventListener('abort', stop);
			reject(error);
		});
	});
}
