/**
 * Every action group the dispatcher runs, registered in one place so the
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
import { taskActions } from '../agents/task-manager.js';
import { recipeActions } from '../recipes/actions.js';

/**
 * Registers every action group.
 * @param {import('../dispatcher.js').Dispatcher} dispatcher
 * @param {object} parts what some groups keep between calls
 * @param {import('./console.js').ConsoleStore} parts.consoleStore
 * @param {import('../agents/task-manager.js').TaskManager} parts.tasks
 * @param {Parameters<typeof recipeActions>[0]} parts.recipes the recipes' store, recordings and runner
 */
export function registerActions(dispatcher, { consoleStore, tasks, recipes }) {
	dispatcher.register(stateActions);
	dispatcher.register(navigationActions);
	dispatcher.register(tabActions);
	dispatcher.register(inputActions);
	dispatcher.register(contentActions);
	dispatcher.register(pageContentActions);
	dispatcher.register(consoleActions(consoleStore));
	dispatcher.register(interactActions);
	dispatcher.register(waitActions);
	dispatcher.register(dialogActions);
	dispatcher.register(viewportActions);
	dispatcher.register(pdfActions);
	dispatcher.register(formActions);
	dispatcher.register(dragActions);
	dispatcher.register(networkActions);
	dispatcher.register(uploadActions);
	dispatcher.register(taskActions(tasks));
	dispatcher.register(recipeActions(recipes));
}
