/**
 * Serial queues by key: actions on one tab run one after another, actions on
 * different tabs run in parallel.
 * @module tab-queue
 */

/** A set of FIFO queues, one per key, each running one task at a time. */
export class KeyedQueue {
	constructor() {
		/** @type {Map<unknown, Promise<void>>} tail of each queue */
		this.tails = new Map();
		/** @type {Map<unknown, number>} tasks queued or running per key */
		this.counts = new Map();
	}

	/**
	 * Runs `task` after every task queued before it under `key`. A task
	 * whose signal aborts while it waits never starts; its promise rejects
	 * with the signal's reason.
	 * @template T
	 * @param {unknown} key
	 * @param {() => Promise<T>} task
	 * @param {AbortSignal} [signal]
	 * @returns {Promise<T>}
	 */
	run(key, task, signal) {
		const previous = this.tails.get(key) ?? Promise.resolve();
		this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
		const result = previous.then(() => {
			if (signal?.aborted)
				throw signal.reason;
			return task();
		});
		const tail = result.then(() => {}, () => {}).then(() => {
			const left = this.counts.get(key) - 1;
			if (left === 0) {
				this.counts.delete(key);
				this.tails.delete(key);
			} else
				this.counts.set(key, left);
		});
		this.tails.set(key, tail);
		return result;
	}

	/**
	 * @param {unknown} key
	 * @returns {number} tasks queued or running under key
	 */
	size(key) {
		return this.counts.get(key) ?? 0;
	}
}
