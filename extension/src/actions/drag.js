/**
 * drag_and_drop: one element dragged onto another with trusted mouse
 * input. Pages use two kinds of dragging: HTML5 drag and drop (draggable
 * elements, dragstart/drop events), which Chrome runs only for a real
 * mouse, so CDP intercepts the drag and replays its data at the target;
 * and pointer-driven dragging (sortable lists), which the mouse moves in
 * steps drive. The press-and-move sequence serves both: an intercepted
 * drag is finished as HTML5, anything else by the moves and release.
 * @module actions/drag
 */

import { BridgeError, ErrorCode } from '../errors.js';
import { DebuggerUnavailable } from '../browser/debugger.js';
import { OutcomeObserver } from '../browser/outcome.js';
import { actionResult, elementLabel, pointerTarget } from './input.js';
import { sleep } from '../sleep.js';

/** Mouse moves between source and target: enough for drag thresholds and per-move reordering. */
const DRAG_STEPS = 12;

/** @type {Record<string, import('../dispatcher.js').ActionDefinition>} */
export const dragActions = {
	drag_and_drop: {
		stateable: true,
		innerRef: params => params.from_ref,
		async run(params, context) {
			const { tab, signal, deadline, services } = context;
			const from = { ...context, element: context.resolveRef(params.from_ref) };
			const to = { ...context, element: context.resolveRef(params.to_ref) };
			const source = await pointerTarget(from, 'drag');
			const target = await pointerTarget(to, 'drop onto');
			const send = (method, args) => services.debuggers.send(tab.id, method, args);
			const mouse = (type, x, y, buttons) => send('Input.dispatchMouseEvent', { type, x, y, button: 'left', buttons, clickCount: type === 'mouseMoved' ? 0 : 1 });
			const observer = new OutcomeObserver(tab, services.network);
			let intercepted = null;
			const stop = services.debuggers.onEvent(tab.id, 'Input.dragIntercepted', params => { intercepted = params.data; });
			try {
				await observer.start(from.element.documentId);
				await send('Input.setInterceptDrags', { enabled: true });
				await mouse('mouseMoved', source.x, source.y, 0);
				await mouse('mousePressed', source.x, source.y, 1);
				for (let i = 1; i <= DRAG_STEPS && intercepted === null; i++) {
					signal.throwIfAborted();
					const f = i / DRAG_STEPS;
					await mouse('mouseMoved', source.x + (target.x - source.x) * f, source.y + (target.y - source.y) * f, 1);
					await sleep(10, signal);
				}
				let kind = 'pointer';
				if (intercepted !== null) {
					kind = 'HTML5';
					for (const type of ['dragEnter', 'dragOver', 'drop'])
						await send('Input.dispatchDragEvent', { type, x: target.x, y: target.y, data: intercepted });
				}
				await mouse('mouseReleased', target.x, target.y, 0);
				const outcome = await observer.finish({ signal, deadline });
				return actionResult(`Dragged ${elementLabel(from.element.ref, source.prepared.info)} onto ` +
				    `${elementLabel(to.element.ref, target.prepared.info)} (${kind} drag).`, outcome,
				    { from: from.element.ref, to: to.element.ref, kind });
			} catch (error) {
				if (error instanceof DebuggerUnavailable)
					throw new BridgeError(ErrorCode.NOT_INTERACTABLE,
					    `Cannot drag in tab ${tab.id}: ${error.message}. Dragging needs the debugger: close DevTools or the other debugger on that tab, then retry.`);
				throw error;
			} finally {
				stop();
				await send('Input.setInterceptDrags', { enabled: false }).catch(() => {});
				observer.dispose();
			}
		},
	},
};
