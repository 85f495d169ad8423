/**
 * set_viewport: the size a tab's page lays out at, through the debugger's
 * device metrics (the pool keeps the debugger attached while it lasts).
 * Headless browsers start at 780x437; agents and tests want a real size.
 * @module actions/viewport
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { runInPage } from '../browser/page-channel.js';

/** Reads the viewport the page sees; runs in the page. */
function pageViewport() {
	return { width: innerWidth, height: innerHeight, scale: devicePixelRatio };
}

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const viewportActions = {
	set_viewport: {
		async run(params, { tab, services }) {
			const reset = params.reset === true;
			if (!reset && (params.width === undefined || params.height === undefined))
				throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
				    'set_viewport needs width and height (CSS pixels), or reset: true for the window\'s own size.');
			try {
				await services.debuggers.setViewport(tab.id, reset ? null :
				    { width: params.width, height: params.height, deviceScaleFactor: params.device_scale_factor ?? 1 });
			} catch (error) {
				if (error instanceof DebuggerUnavailable)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
					    `Cannot size the viewport of tab ${tab.id}: ${error.message}. Close DevTools or the other debugger on that tab, then retry.`);
				throw error;
			}
			const [answer] = await runInPage(tab, { frameIds: [0] }, pageViewport, [], { needs: [] }).catch(() => []);
			const seen = answer?.result ?? null;
			const size = seen !== null ? `${seen.width}x${seen.height} (device scale factor ${seen.scale})` :
			    `${params.width}x${params.height}`;
			const text = reset ? `The viewport of tab ${tab.id} is the window's own again: ${size}.` :
			    `The viewport of tab ${tab.id} is now ${size}.`;
			return { content: [{ type: 'text', text }], structuredContent: { tab_id: tab.id, ...(seen ?? {}), reset } };
		},
	},
};
