/**
 * save_pdf: the tab printed to a PDF (CDP Page.printToPDF), returned as an
 * embedded resource the client can save.
 * @module actions/pdf
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { quote } from '../page-state/format.js';

/** PDFs larger than this are refused: they would not fit a tool result. */
export const PDF_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Counts a PDF's pages: its /Type /Page objects (not /Pages).
 * @param {string} base64
 * @returns {number}
 */
export function pdfPageCount(base64) {
	return (atob(base64).match(/\/Type\s*\/Page(?!s)/g) ?? []).length;
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const pdfActions = {
	save_pdf: {
		async run(params, { tab, services }) {
			let printed;
			try {
				printed = await services.debuggers.send(tab.id, 'Page.printToPDF', {
					landscape: params.landscape === true,
					printBackground: params.print_background === true,
				});
			} catch (error) {
				if (error instanceof DebuggerUnavailable)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
					    `Cannot print tab ${tab.id}: ${error.message}. Close DevTools or the other debugger on that tab, then retry.`);
				throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
				    `This browser cannot print tab ${tab.id} to PDF (${error?.message ?? error}). ` +
				    'Printing needs a headless browser or a recent Chrome; take_screenshot or get_page_content can capture the page instead.');
			}
			const bytes = Math.floor(printed.data.length * 3 / 4);
			if (bytes > PDF_MAX_BYTES)
				throw new BridgeError(ErrorCode.MESSAGE_TOO_LARGE,
				    `The PDF of tab ${tab.id} is ${Math.round(bytes / 1048576)} MB, over the ${PDF_MAX_BYTES / 1048576} MB a result may carry. ` +
				    'Print a shorter page, or use get_page_content.');
			const pages = pdfPageCount(printed.data);
			const title = tab.title ? ` ${quote(tab.title)}` : '';
			const text = `Printed tab ${tab.id}${title} to a ${pages}-page PDF (${Math.max(1, Math.round(bytes / 1024))} KB).`;
			return {
				content: [
					{ type: 'text', text },
					{ type: 'resource', resource: { uri: `browser://tabs/${tab.id}/page.pdf`, mimeType: 'application/pdf', blob: printed.data } },
				],
				structuredContent: { tab_id: tab.id, pages, bytes },
			};
		},
	},
};
