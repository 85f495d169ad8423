/**
 * upload_file: files from the user's disk into a file input, through the
 * debugger (DOM.setFileInputFiles). The host decides which files may go:
 * only regular files with one link under config.json's "upload_roots"
 * (default ~/Downloads), never its own directories; the page gets the
 * host's private copy of each.
 * @module actions/upload
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { runOnElement } from '../browser/page-channel.js';
import { OutcomeObserver } from '../browser/outcome.js';
import { actionResult, elementLabel } from './input.js';

/**
 * Page function: marks a file input so the debugger can find it, or says
 * why it is not one.
 * @param {number} id
 * @param {string} mark
 * @param {boolean} clear remove the mark instead
 */
function markFileInput(id, mark, clear) {
	const el = globalThis.__browserBridgePage?.element?.(id) ?? null;
	if (el === null)
		return { stale: true };
	if (clear) {
		el.removeAttribute('data-bb-upload');
		return { ok: true };
	}
	if (el.tagName !== 'INPUT' || el.type !== 'file')
		return { error: { code: 'NOT_EDITABLE', message: 'it is not a file input (<input type="file">)' } };
	if (el.disabled)
		return { error: { code: 'NOT_INTERACTABLE', message: 'it is disabled' } };
	el.setAttribute('data-bb-upload', mark);
	return { ok: true, multiple: el.multiple, info: { role: 'input', name: (el.labels?.[0]?.textContent ?? el.name ?? '').trim() } };
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const uploadActions = {
	upload_file: {
		stateable: true,
		refRequired: true,
		async run(params, context) {
			const { tab, element, signal, deadline, services } = context;
			if (services.host === undefined)
				throw new BridgeError(ErrorCode.INTERNAL, 'The host is not connected, so it cannot check which files may be uploaded.');
			const { paths } = await services.host.call('check_upload', { paths: params.paths });
			const mark = crypto.randomUUID();
			const marked = await runOnElement(context, markFileInput, [mark, false]);
			if (marked.error !== undefined)
				throw new BridgeError(marked.error.code, `Cannot upload into ${elementLabel(element.ref, marked.info)}: ${marked.error.message}.`);
			if (!marked.multiple && paths.length > 1)
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    `${elementLabel(element.ref, marked.info)} takes one file, not ${paths.length}.`);
			const observer = new OutcomeObserver(tab, services.network);
			try {
				await observer.start(element.documentId);
				const send = (method, args) => services.debuggers.send(tab.id, method, args);
				const { root } = await send('DOM.getDocument', { depth: -1, pierce: true });
				const { nodeId } = await send('DOM.querySelector', { nodeId: root.nodeId, selector: `[data-bb-upload="${mark}"]` });
				if (!nodeId)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
					    `Cannot upload into ${element.ref}: the debugger cannot reach it (inside a frame of another site?).`);
				await send('DOM.setFileInputFiles', { nodeId, files: paths });
				const outcome = await observer.finish({ signal, deadline });
				const names = paths.map(p => p.slice(p.lastIndexOf('/') + 1));
				return actionResult(`Chose ${names.map(n => JSON.stringify(n)).join(', ')} in ${elementLabel(element.ref, marked.info)}.`,
				    outcome, { ref: element.ref, files: paths });
			} catch (error) {
				if (error instanceof DebuggerUnavailable)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
					    `Cannot upload in tab ${tab.id}: ${error.message}. Uploading needs the debugger: close DevTools or the other debugger on that tab.`);
				throw error;
			} finally {
				observer.dispose();
				await runOnElement(context, markFileInput, [mark, true]).catch(() => {});
			}
		},
	},
};
