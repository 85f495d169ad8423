// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe
// (fds 3 and 4, messages separated by NUL). The tests use it only to check
// what the page really looks like, independently of the extension.

import { scaled } from '../timing.mjs';

export class CdpPipe {
	constructor(write, read) {
		this.write = write;
		this.nextId = 1;
		this.pending = new Map();
		this.buffer = '';
		this.closed = false;
		this.sessions = new Map();	// targetId -> sessionId
		this.listeners = new Set();	// called with every event
		read.on('data', data => this.onData(data));
		read.on('close', () => this.onClose());
		read.on('error', () => this.onClose());
		write.on('error', () => this.onClose());
	}

	onData(data) {
		this.buffer += data.toString('utf8');
		let end;
		while ((end = this.buffer.indexOf('\0')) !== -1) {
			const text = this.buffer.slice(0, end);
			this.buffer = this.buffer.slice(end + 1);
			let message;
			try {
				message = JSON.parse(text);
			} catch {
				continue;
			}
			if (message.id === undefined && message.method !== undefined)
				this.listeners.forEach(listener => listener(message));
			if (message.id !== undefined && this.pending.has(message.id)) {
				const { resolve, reject, method } = this.pending.get(message.id);
				this.pending.delete(message.id);
				if (message.error)
					reject(new Error(`CDP ${method}: ${message.error.message}`));
				else
					resolve(message.result);
			}
		}
	}

	onClose() {
		if (this.closed)
			return;
		this.closed = true;
		for (const { reject, method } of this.pending.values())
			reject(new Error(`CDP ${method}: the browser closed the pipe`));
		this.pending.clear();
	}

	// Sends a command; sessionId for a target session.
	send(method, params = {}, sessionId = undefined) {
		if (this.closed)
			return Promise.reject(new Error(`CDP ${method}: the pipe is closed`));
		const id = this.nextId++;
		const message = { id, method, params };
		if (sessionId !== undefined)
			message.sessionId = sessionId;
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				if (this.pending.delete(id))
					reject(new Error(`CDP ${method}: no answer in ${scaled(10000)} ms`));
			}, scaled(10000));
			this.pending.set(id, {
				method,
				resolve: value => { clearTimeout(timer); resolve(value); },
				reject: error => { clearTimeout(timer); reject(error); },
			});
			this.write.write(`${JSON.stringify(message)}\0`);
		});
	}

	// Calls listener with every event ({method, params, sessionId});
	// returns the function that stops it.
	on(listener) {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	// Every target (pages, iframes, workers).
	async targets() {
		const { targetInfos } = await this.send('Target.getTargets');
		return targetInfos;
	}

	// Finds a page or iframe target whose URL passes the test: a function,
	// a RegExp, or a string the URL equals (ignoring the fragment).
	async findTarget(test, types = ['page', 'iframe']) {
		const match = typeof test === 'function' ? test :
		    test instanceof RegExp ? url => test.test(url) :
		    url => url === test || url.startsWith(`${test}#`);
		const list = await this.targets();
		return list.find(t => types.includes(t.type) && match(t.url));
	}

	// Evaluates an expression in the first page/iframe whose URL matches
	// `where` (see findTarget); resolves to its value (JSON).
	async evaluate(where, expression) {
		const target = await this.findTarget(where);
		if (target === undefined)
			throw new Error(`no page or frame target has a URL matching ${where}; targets: ` +
			    (await this.targets()).map(t => `${t.type} ${t.url}`).join(', '));
		let sessionId = this.sessions.get(target.targetId);
		if (sessionId === undefined) {
			({ sessionId } = await this.send('Target.attachToTarget', { targetId: target.targetId, flatten: true }));
			this.sessions.set(target.targetId, sessionId);
		}
		let result;
		try {
			result = await this.send('Runtime.evaluate',
			    { expression, returnByValue: true, awaitPromise: true }, sessionId);
		} catch (error) {
			// The target navigated or closed: attach again once.
			this.sessions.delete(target.targetId);
			throw error;
		}
		if (result.exceptionDetails)
			throw new Error(`evaluate ${expression}: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`);
		return result.result.value;
	}
}
