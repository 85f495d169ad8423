/**
 * The tools the navigator may call and how its prompt lists them: only the
 * catalogue tools that serve a task in a page, following the person's
 * settings, each on one line with its arguments (the model's replies are
 * still checked against the full input schemas, task-loop.js).
 * @module agents/tools
 */

/** Tools the agents never get: the task tools themselves, and the recipe tools (recipes/actions.js). */
export const TASK_TOOLS = ['run_task', 'get_task', 'stop_task', 'list_tasks', 'answer_task',
	'start_recording', 'stop_recording', 'run_recipe', 'list_recipes', 'get_recipe', 'delete_recipe'];

/**
 * Catalogue tools that do not serve a task in a page (printing, the
 * viewport, the console, screenshots, the host, files from this machine,
 * the long element lists get_browser_state already covers), so the
 * agents are not offered them.
 */
const NOT_FOR_TASKS = ['save_pdf', 'set_viewport', 'get_console_logs', 'take_screenshot', 'host_status', 'upload_file',
	'get_dom_extra_elements'];

/** Arguments the loop fills in itself, so the list leaves them out (manage_tabs keeps tab_id: it names another tab). */
const FILLED_IN = ['tab_id', 'include_state'];

/**
 * The catalogue tools the navigator may use: no task tools, none of
 * NOT_FOR_TASKS, evaluate_script only when the person allowed scripts and
 * the network tools only when they allowed those, and, for a task an OAuth
 * client started, only the tools whose scope its key holds (pages:act for
 * acting, network, scripts).
 * @param {{name: string, description: string, input_schema: object, scope?: string}[]} catalogue
 * @param {{script: boolean, network: boolean, networkTools: string[], scopes?: string[]}} allowed networkTools:
 *   the network tools' names; scopes: the key's (absent: the owner key, every scope)
 * @returns {{name: string, description: string, input_schema: object}[]}
 */
export function agentTools(catalogue, allowed) {
	return catalogue
	    .filter(tool => !TASK_TOOLS.includes(tool.name) && !NOT_FOR_TASKS.includes(tool.name) &&
		(tool.name !== 'evaluate_script' || allowed.script) && (!allowed.networkTools.includes(tool.name) || allowed.network) &&
		(allowed.scopes === undefined || allowed.scopes.includes(tool.scope)))
	    .map(tool => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema }));
}

/**
 * A schema's type in a few characters: "a|b" for an enum, "[string]" for
 * an array, "{x, y}" for an object.
 * @param {object} schema
 * @returns {string}
 */
function typeHint(schema) {
	if (Array.isArray(schema?.enum))
		return schema.enum.join('|');
	if (schema?.type === 'array')
		return `[${typeHint(schema.items)}]`;
	if (schema?.type === 'object' && schema.properties !== undefined)
		return `{${Object.keys(schema.properties).join(', ')}}`;
	return Array.isArray(schema?.type) ? schema.type.join('|') : schema?.type ?? 'any';
}

/**
 * One tool as one line: its name, its arguments (a "?" marks the optional
 * ones) and its description.
 * @param {{name: string, description: string, input_schema: object}} tool
 * @returns {string}
 */
export function toolLine(tool) {
	const schema = tool.input_schema ?? {};
	const required = schema.required ?? [];
	const args = Object.entries(schema.properties ?? {})
	    .filter(([name]) => tool.name === 'manage_tabs' || !FILLED_IN.includes(name))
	    .map(([name, property]) => `${name}${required.includes(name) ? '' : '?'}: ${typeHint(property)}`);
	return `- ${tool.name}(${args.join(', ')}): ${String(tool.description ?? '').replace(/\s+/g, ' ').trim()}`;
}
