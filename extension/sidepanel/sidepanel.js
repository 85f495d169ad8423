/*
 * The side panel: the person types a task for the extension's agents and
 * watches it run (plan, steps, verdict, answer, tokens); tasks MCP clients
 * start with run_task show up too. A running task can be paused (the
 * person then acts in the page by hand), resumed (the agents read the page
 * again and plan from there) or stopped; a task that asks the person
 * something (ask_user) waits for the answer typed here, or "done" after
 * they acted in the page; a finished one can be run again or deleted. The
 * service worker (background.js) owns the tasks. Below them, the recipes
 * (docs/recipes.md), every caller's: each can be run (replayed with no
 * model in a new tab, after the person fills in the parameters that have
 * no default, secrets among them), deleted, or exported as its JSON and as
 * a Playwright test.
 */

import { RECIPES_KEY } from '../src/recipes/store.js';
import { recipeToPlaywright } from '../src/recipes/playwright.js';

const $ = id => document.getElementById(id);

/** Asks the service worker; shows its error, if any, and resolves to its answer. */
async function ask(message) {
	const answer = await chrome.runtime.sendMessage(message);
	if (answer?.error !== undefined)
		$('notice').textContent = answer.error;
	return answer;
}

/** A button that sends a message about a task. */
function taskButton(text, message) {
	const button = document.createElement('button');
	button.type = 'button';
	button.textContent = text;
	button.addEventListener('click', async () => {
		button.disabled = true;
		render(await ask(message));
	});
	return button;
}

/** One line of a task's steps. */
function stepLine(step) {
	const li = document.createElement('li');
	const target = step.label !== undefined ? ` "${step.label}"` : '';
	li.textContent = `${step.tool}${target}: ${step.outcome}${step.detail ? ` (${step.detail})` : ''}`;
	if (step.outcome === 'error' || step.outcome === 'refused' || step.outcome === 'rejected')
		li.className = 'failed';
	return li;
}

/** What a task's status line says. */
function statusText(task) {
	if (task.status === 'running')
		return `Running in tab ${task.tab_id}`;
	if (task.status === 'paused')
		return `Paused in tab ${task.tab_id}: act in the page, then Resume`;
	if (task.status === 'waiting')
		return `Waiting for you in tab ${task.tab_id}`;
	return task.stop_reason === 'done' ? 'Done' : `Stopped: ${task.stop_reason}`;
}

/** The question a task waits on, with a field for the answer and its two buttons. */
function questionForm(task) {
	const form = document.createElement('form');
	form.className = 'question';
	const label = document.createElement('label');
	label.textContent = task.question;
	const field = document.createElement('input');
	field.type = 'text';
	field.placeholder = 'Your answer, or Done after doing it in the page';
	label.append(field);
	const answer = document.createElement('button');
	answer.type = 'submit';
	answer.textContent = 'Answer';
	const done = taskButton('Done, continue', { type: 'taskControl', id: task.id, what: 'answer', text: 'done' });
	form.addEventListener('submit', async event => {
		event.preventDefault();
		answer.disabled = true;
		render(await ask({ type: 'taskControl', id: task.id, what: 'answer', text: field.value }));
	});
	form.append(label, answer, done);
	return form;
}

/** One task, as an article with its controls. */
function taskView(task) {
	const article = document.createElement('article');
	article.className = `task ${task.status}`;
	article.dataset.taskId = task.id;
	const heading = document.createElement('h3');
	heading.textContent = task.task;
	const status = document.createElement('p');
	status.className = 'status';
	status.textContent = statusText(task);
	const who = document.createElement('p');
	who.className = 'note';
	who.textContent = `Started by ${task.started_by} at ${new Date(task.started).toLocaleTimeString()}`;
	article.append(heading, status, who);
	if (task.plan) {
		const plan = document.createElement('p');
		plan.className = 'note';
		plan.textContent = `Plan: ${task.plan}${task.next_goal ? ` Next: ${task.next_goal}` : ''}`;
		article.append(plan);
	}
	const actions = task.steps.filter(step => step.tool !== 'planner');
	if (actions.length > 0) {
		const list = document.createElement('ol');
		list.append(...actions.map(stepLine));
		article.append(list);
	}
	if (task.verdict !== null) {
		const verdict = document.createElement('p');
		verdict.textContent = `Validator: ${task.verdict.verdict} (${task.verdict.reason})`;
		article.append(verdict);
	}
	if (task.answer !== null || task.message !== null) {
		const answer = document.createElement('p');
		answer.className = 'answer';
		answer.textContent = task.answer ?? task.message;
		article.append(answer);
	}
	const tokens = document.createElement('p');
	tokens.className = 'note';
	tokens.textContent = `Tokens: ${task.usage.input_tokens} in, ${task.usage.output_tokens} out (${task.usage.model_calls} model calls)`;
	article.append(tokens);
	if (task.question !== null && task.question !== undefined)
		article.append(questionForm(task));
	const controls = document.createElement('div');
	if (task.status === 'running' || task.status === 'waiting')
		controls.append(taskButton('Pause', { type: 'taskControl', id: task.id, what: 'pause' }));
	if (task.status === 'paused')
		controls.append(taskButton('Resume', { type: 'taskControl', id: task.id, what: 'resume' }));
	if (task.status !== 'finished')
		controls.append(taskButton('Stop', { type: 'taskControl', id: task.id, what: 'stop' }));
	else
		controls.append(taskButton('Run again', { type: 'rerunTask', id: task.id }),
		    taskButton('Delete', { type: 'forgetTask', id: task.id }));
	article.append(controls);
	return article;
}

/**
 * Shows the tasks (an answer without a list leaves the view as it is).
 * An answer being typed, and the focus on it, survive the redraw that
 * another task's step causes.
 */
function render(answer) {
	if (!Array.isArray(answer?.tasks))
		return;
	const typing = new Map([...document.querySelectorAll('.task form.question input')]
	    .map(field => [field.closest('.task').dataset.taskId, { value: field.value, focused: field === document.activeElement }]));
	$('tasks').replaceChildren(...answer.tasks.map(taskView));
	$('no-tasks').hidden = answer.tasks.length > 0;
	for (const [id, { value, focused }] of typing) {
		const field = document.querySelector(`.task[data-task-id="${CSS.escape(id)}"] form.question input`);
		if (field === null)
			continue;
		field.value = value;
		if (focused)
			field.focus();
	}
}

/** A file name from a recipe's name: its letters and digits in lower case, joined by dashes (its id if none). */
function fileStem(recipe) {
	return recipe.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || recipe.id;
}

/** Has the browser download a text as a file. */
function download(name, type, text) {
	const url = URL.createObjectURL(new Blob([text], { type }));
	Object.assign(document.createElement('a'), { href: url, download: name }).click();
	setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** Exports a recipe: its JSON and the Playwright test made from it, as two downloads. */
function exportRecipe(recipe) {
	const stem = fileStem(recipe);
	download(`${stem}.recipe.json`, 'application/json', `${JSON.stringify(recipe, null, 2)}\n`);
	try {
		download(`${stem}.spec.ts`, 'text/plain', recipeToPlaywright(recipe));
		$('notice').textContent = `Exported "${recipe.name}" as ${stem}.recipe.json and ${stem}.spec.ts.`;
	} catch (error) {
		$('notice').textContent = `Exported "${recipe.name}" as ${stem}.recipe.json only: ${error.message}`;
	}
}

/** A button of a recipe: sends the request message() makes, then shows the recipes and what happened. */
function recipeButton(text, message) {
	const button = document.createElement('button');
	button.type = 'button';
	button.textContent = text;
	button.addEventListener('click', async () => {
		button.disabled = true;
		$('notice').textContent = text === 'Run' ? 'Running the recipe in a new tab…' : '';
		renderRecipes(await ask(message()));
		button.disabled = false;
	});
	return button;
}

/** A field for a parameter the recipe has no default for (a secret's is a password field). */
function parameterField(parameter) {
	const label = document.createElement('label');
	label.textContent = parameter.secret ? `${parameter.name} (secret: never stored)` : parameter.name;
	const field = document.createElement('input');
	field.type = parameter.secret ? 'password' : 'text';
	field.name = parameter.name;
	field.autocomplete = 'off';
	label.append(field);
	return label;
}

/** One recipe, as an article: its name, steps, owner and creation, the fields it needs, Run, Delete and Export. */
function recipeView(recipe) {
	const article = document.createElement('article');
	article.className = 'recipe';
	article.dataset.recipeId = recipe.id;
	const heading = document.createElement('h3');
	heading.textContent = recipe.name;
	const about = document.createElement('p');
	about.className = 'note';
	about.textContent = `${recipe.steps.length} step${recipe.steps.length === 1 ? '' : 's'}, by ${recipe.owner}, ` +
	    `created ${new Date(recipe.created).toLocaleString()}`;
	article.append(heading, about, ...recipe.parameters.filter(parameter => parameter.default === undefined).map(parameterField));
	/* The values typed; an empty field gives none, so the replay says which parameters it still needs. */
	const values = () => Object.fromEntries([...article.querySelectorAll('input')].filter(field => field.value !== '')
	    .map(field => [field.name, field.value]));
	const exporter = document.createElement('button');
	exporter.type = 'button';
	exporter.textContent = 'Export';
	exporter.addEventListener('click', () => exportRecipe(recipe));
	const controls = document.createElement('div');
	controls.append(recipeButton('Run', () => ({ type: 'runRecipe', id: recipe.id, parameters: values() })),
	    recipeButton('Delete', () => ({ type: 'deleteRecipe', id: recipe.id })), exporter);
	article.append(controls);
	return article;
}

/**
 * Shows the recipes and what the last request did (an answer without a
 * list leaves the view as it is). Values typed into their fields survive
 * the redraw.
 */
function renderRecipes(answer) {
	if (!Array.isArray(answer?.recipes))
		return;
	if (answer.notice)
		$('notice').textContent = answer.notice;
	const typed = new Map([...document.querySelectorAll('.recipe input')]
	    .map(field => [`${field.closest('.recipe').dataset.recipeId}\n${field.name}`, field.value]));
	$('recipes').replaceChildren(...answer.recipes.map(recipeView));
	$('no-recipes').hidden = answer.recipes.length > 0;
	for (const field of document.querySelectorAll('.recipe input'))
		field.value = typed.get(`${field.closest('.recipe').dataset.recipeId}\n${field.name}`) ?? '';
}

$('new-task').addEventListener('submit', async event => {
	event.preventDefault();
	const text = $('task-text').value.trim();
	if (text === '')
		return;
	$('run').disabled = true;
	$('notice').textContent = '';
	try {
		const answer = await ask({ type: 'startTask', task: text });
		if (answer?.error === undefined)
			$('task-text').value = '';
		render(answer);
	} finally {
		$('run').disabled = false;
	}
});

chrome.runtime.onMessage.addListener(message => {
	if (message?.type === 'tasks')
		render(message);
});

/* A recipe kept or deleted elsewhere (a task that ended done, an MCP client) shows at once. */
chrome.storage.onChanged.addListener((changes, area) => {
	if (area === 'local' && Object.hasOwn(changes, RECIPES_KEY))
		ask({ type: 'panelRecipes' }).then(renderRecipes);
});

render(await ask({ type: 'panelTasks' }));
renderRecipes(await ask({ type: 'panelRecipes' }));
