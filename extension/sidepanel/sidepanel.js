/*
 * The side panel: the person types a task for the extension's agents and
 * watches it run (plan, steps, verdict, answer, tokens); tasks MCP clients
 * start with run_task show up too. A running task can be paused (the
 * person then acts in the page by hand), resumed (the agents read the page
 * again and plan from there) or stopped; a task that asks the person
 * something (ask_user) waits for the answer typed here, or "done" after
 * they acted in the page; a finished one can be run again or deleted. The
 * service worker (background.js) owns the tasks.
 */

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

render(await ask({ type: 'panelTasks' }));
