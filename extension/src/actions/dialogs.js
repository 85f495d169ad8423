/**
 * handle_dialog: answers the JavaScript dialog (alert, confirm, prompt,
 * beforeunload) open on a tab, through CDP Page.handleJavaScriptDialog.
 * Dialogs are seen through the debugger pool (Page.javascriptDialogOpening);
 * the dispatcher reports one that opens during another action.
 * @module actions/dialogs
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { quote } from '../page-state/format.js';

/**
 * 'the prompt "Your name?"' for messages.
 * @param {{type: string, message: string}} dialog
 * @returns {string}
 */
export function describeDialog(dialog) {
	if (dialog.type === 'beforeunload')
		return dialog.message ? `the beforeunload dialog ${quote(dialog.message)} (leave the page?)` :
		    'the beforeunload dialog (leave the page?)';
	return `the ${dialog.type} ${quote(dialog.message)}`;
}

/**
 * The reply of an action cut short by a dialog.
 * @param {string} method the action
 * @param {{type: string, message: string, default_prompt?: string}} dialog
 * @returns {{content: object[], structuredContent: object}}
 */
export function dialogResult(method, dialog) {
	const text = `${method} stopped: the page opened ${describeDialog(dialog)} and waits for an answer. ` +
	    `${dialogAdvice(dialog)}`;
	return { content: [{ type: 'text', text }], structuredContent: { dialog } };
}

/**
 * What to call next about an open dialog.
 * @param {{type: string}} dialog
 * @returns {string}
 */
export function dialogAdvice(dialog) {
	return dialog.type === 'prompt' ?
	    'Answer it with handle_dialog (action "accept" with prompt_text, or "dismiss").' :
	    'Answer it with handle_dialog (action "accept" or "dismiss").';
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const dialogActions = {
	handle_dialog: {
		unqueued: true,
		async run(params, context) {
			const { tab, services } = context;
			const debuggers = services.debuggers;
			if (params.action !== 'accept' && params.action !== 'dismiss')
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT, 'handle_dialog needs action "accept" or "dismiss".');
			const accept = params.action === 'accept';
			try {
				await debuggers.watchDialogs(tab.id);
			} catch (error) {
				if (error instanceof DebuggerUnavailable)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
					    `Cannot answer dialogs on tab ${tab.id}: ${error.message}. Answer it in the browser, or close DevTools on that tab.`);
				throw error;
			}
			const dialog = debuggers.dialogs.get(tab.id);
			const args = { accept };
			if (accept && dialog?.type === 'prompt')
				args.promptText = params.prompt_text ?? dialog.default_prompt ?? '';
			else if (accept && params.prompt_text !== undefined && dialog === undefined)
				args.promptText = params.prompt_text;
			try {
				await debuggers.send(tab.id, 'Page.handleJavaScriptDialog', args);
			} catch (error) {
				if (/no dialog/i.test(String(error?.message ?? error)))
					throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
					    `No dialog is open on tab ${tab.id}, so there is nothing to ${params.action}. ` +
					    'handle_dialog answers an alert, confirm, prompt or beforeunload dialog that an action reported.');
				if (error instanceof DebuggerUnavailable)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE, `Cannot answer the dialog on tab ${tab.id}: ${error.message}.`);
				throw error;
			}
			debuggers.dialogs.delete(tab.id);
			const what = dialog === undefined ? 'the dialog' : describeDialog(dialog);
			let text = `${accept ? 'Accepted' : 'Dismissed'} ${what}`;
			if (accept && dialog?.type === 'prompt')
				text += ` with ${quote(args.promptText)}`;
			text += '.';
			if (params.prompt_text !== undefined && dialog !== undefined && (dialog.type !== 'prompt' || !accept))
				text += ` (prompt_text was not used: ${dialog.type !== 'prompt' ? `it is a ${dialog.type}, not a prompt` : 'the prompt was dismissed'}.)`;
			if (dialog?.type === 'beforeunload')
				text += accept ? ' The page is being left.' : ' The page stays.';
			const structured = { action: params.action, tab_id: tab.id };
			if (dialog !== undefined)
				structured.dialog = dialog;
			if (args.promptText !== undefined && accept && dialog?.type === 'prompt')
				structured.prompt_text = args.promptText;
			return { content: [{ type: 'text', text }], structuredContent: structured };
		},
	},
};
