/**
 * Every action group the navigator runs, registered in one place so the
 * service worker and the catalogue test see the same registry.
 * @module actions
 */

import { stateActions } from './state.js';
import { navigationActions } from './navigation.js';
import { tabActions } from './tabs.js';
import { inputActions } from './input.js';
import { contentActions } from './content.js';
import { consoleActions } from './console.js';
import { pageContentActions } from './page-content.js';
import { interactActions } from './interact.js';
import { waitActions } from './wait-for.js';
import { dialogActions } from './dialogs.js';
import { viewportActions } from './viewport.js';
import { pdfActions } from './pdf.js';
import { formActions } from './form.js';
import { dragActions } from './drag.js';
import { networkActions } from './network.js';
import { uploadActions } from './upload.js';
import { taskActions } from '../agents/tasks.js';

/**
 * Registers every action group.
 * @param {import('../navigator.js').Navigator} navigator
 * @param {object} parts what some groups keep between calls
 * @param {import('./console.js').ConsoleStore} parts.consoleStore
 * @param {import('../agents/tasks.js').TaskManager} parts.tasks
 */
export function registerActions(navigator, { consoleStore, tasks }) {
	navigator.register(stateActions);
	navigator.register(navigationActions);
	navigator.register(tabActions);
	navigator.register(inputActions);
	navigator.register(contentActions);
	navigator.register(pageContentActions);
	navigator.register(consoleActions(consoleStore));
	navigator.register(interactActions);
	navigator.register(waitActions);
	navigator.register(dialogActions);
	navigator.register(viewportActions);
	navigator.register(pdfActions);
	navigator.register(formActions);
	navigator.register(dragActions);
	navigator.register(networkActions);
	navigator.register(uploadActions);
	navigator.register(taskActions(tasks));
}
