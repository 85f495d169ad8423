/**
 * The step loop of one task: the planner plans, the navigator acts a step
 * at a time through the same actions the MCP tools run, the validator
 * checks every claimed answer, and the limits stop the loop with a reason.
 * Everything it touches (models, prompts, the browser, the clock) is
 * passed in, so the loop runs the same under node --test and in Chrome.
 * @module agents/task
 */

import { ErrorCode } from '../errors.js';
import { schemaError } from '../json-schema.js';
import { domainAllowed, domainRefusal } from './domains.js';
import { MAX_ACTIONS_PER_STEP } from './roles.js';
import { randomNonce } from './prompts.js';
import { untilAborted } from '../sleep.js';
import { parseKeySequence } from '../keys.js';
import { mask } from './redact.js';

/** Why a task stopped. */
export const StopReason = Object.freeze({
	DONE: 'done',
	IMPOSSIBLE: 'impossible',
	MAX_STEPS: 'max_steps',
	MAX_FAILURES: 'max_failures',
	TIMEOUT: 'timeout',
	CANCELLED: 'cancelled',
	PROVIDER_ERROR: 'provider_error',
	BUDGET: 'budget',
	PAUSED_BY_USER: 'paused_by_user',
	STOPPED_BY_USER: 'stopped_by_user',
	WAITING_FOR_USER: 'waiting_for_user',
	TAB_CLOSED: 'tab_closed',
});

/**
 * The navigator's one action that is not a catalogue tool: it asks the
 * person at the browser and never reaches the page. The task waits for the
 * answer (its wall clock runs on: timeout_ms ends a wait with
 * waiting_for_user).
 */
export const ASK_USER = Object.freeze({
	name: 'ask_user',
	description: 'Ask the person at the browser for what only they can do or decide: log in, solve a CAPTCHA, ' +
	    'confirm a payment, choose where the task left a choice open. The task waits until they answer ' +
	    '(they may do it in the page and say "done"); their answer comes back as this action\'s result. ' +
	    'Ask one short, specific question; never ask for a password in words.',
	input_schema: Object.freeze({
		type: 'object',
		properties: Object.freeze({ question: Object.freeze({ type: 'string', minLength: 1, maxLength: 500 }) }),
		required: Object.freeze(['question']),
		additionalProperties: false,
	}),
});

/** Action errors the navigator recovers from by reading the page again. */
const RECOVERABLE = new Set([ErrorCode.STALE_REF, ErrorCode.ELEMENT_NOT_FOUND, ErrorCode.NOT_INTERACTABLE]);

/**
 * Consecutive action failures after which the planner is asked again: a
 * failed step. One failure is the navigator's to fix, from the fresh state
 * and the error in the history.
 */
const REPLAN_AFTER_FAILURES = 2;

/** A field's value or placeholder in a state line (format.js): what the navigator typed is no news. */
const FIELD_VALUE = / (?:value|placeholder)="(?:[^"\\]|\\.)*"/g;

/**
 * What says whether the page changed for the navigator: its address and
 * its state, the fields' values aside.
 * @param {PageView} view
 * @returns {string}
 */
function pageKey(view) {
	return `${view.url}\n${view.state.replace(FIELD_VALUE, '')}`;
}

/**
 * Runs one phase of a task; with a trace hook, tells it the phase's start
 * and end (performance.timeOrigin + performance.now(), ms); without one,
 * the phase just runs.
 * @template T
 * @param {((phase: string, start: number, end: number) => void)|undefined} trace
 * @param {string} phase
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
export function timePhase(trace, phase, work) {
	if (trace === undefined)
		return work();
	const start = performance.timeOrigin + performance.now();
	return work().finally(() => trace(phase, start, performance.timeOrigin + performance.now()));
}

/** Longest detail kept per step in the history and the result. */
const DETAIL_CHARS = 300;

/**
 * Shortest secret that conceal looks for in the task's texts: a shorter
 * one would mask ordinary words and numbers (its arguments are masked
 * whatever its length).
 */
const SECRET_MIN = 4;

/** The abort reason of a task that ran out of time. */
class TaskTimeout extends Error {
	constructor(ms) {
		super(`the task ran out of time (${ms} ms)`);
		this.name = 'TaskTimeout';
	}
}

/** Ends the loop with a stop reason. */
class TaskStop extends Error {
	/**
	 * @param {string} reason a StopReason
	 * @param {string} message
	 */
	constructor(reason, message) {
		super(message);
		this.reason = reason;
	}
}

/**
 * What the loop needs from the browser, bound to the task's tab.
 * @typedef {object} TaskBrowser
 * @property {(signal: AbortSignal) => Promise<PageView>} read the page's state (get_browser_state)
 * @property {(signal: AbortSignal) => Promise<string>} [pageText] the page's visible text, cut (get_page_content)
 * @property {(tool: string, args: object, signal: AbortSignal) => Promise<{text: string, url?: string, view?: PageView,
 *   secretRefs?: string[], secretFocus?: boolean}>} act runs one catalogue tool; view: the page after it, when the tool
 *   reported it in the same call (include_state); secretRefs: the secret fields it typed into (the tool's secret_refs);
 *   secretFocus: press_keys without a ref pressed its keys into a secret field that had focus (the tool's secret)
 * @property {(signal: AbortSignal) => Promise<void>} back returns from a page outside the allowed domains
 * @property {() => {url: string, here: boolean}[]} blocked the pages the browser's fence stopped in the task's tabs
 *   since the last call; here: in place of the task tab's own page (it shows the browser's error page)
 * @property {(signal: AbortSignal) => Promise<{media_type: string, data: string}>} [screenshot]
 */

/**
 * @typedef {object} PageView
 * @property {string} state the compact state text of get_browser_state
 * @property {string} [page_text] the page's visible text, cut, once it was read
 * @property {string} url
 * @property {string} title
 * @property {Map<string, string>} labels element names by ref
 * @property {Set<string>} [secrets] the refs of fields that hold a secret (a password, a PIN: the state's secret)
 */

/**
 * One entry of the task's history.
 * @typedef {object} Step
 * @property {number} step the navigator step it belongs to (0: before the first)
 * @property {string} tool an action, or "planner" / "validator"
 * @property {object} [args]
 * @property {string} [label] the element's name, for actions on a ref
 * @property {'ok'|'error'|'refused'|'skipped'|'accepted'|'rejected'|'planned'} outcome
 * @property {string} detail
 */

/**
 * The text press_keys types between its named keys ("739164{Enter}" types
 * "739164"); none when the keys do not parse (then nothing is typed).
 * @param {string} keys
 * @returns {string[]}
 */
function textRuns(keys) {
	try {
		return parseKeySequence(keys).filter(token => token.type === 'text').map(token => token.text);
	} catch {
		return [];
	}
}

/**
 * Shortens a text for the history.
 * @param {string} text
 * @returns {string}
 */
function brief(text) {
	const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
	return flat.length > DETAIL_CHARS ? `${flat.slice(0, DETAIL_CHARS - 1)}…` : flat;
}

/** The loop of one task. Create, then run() once. */
export class AgentTask {
	/**
	 * @param {object} options
	 * @param {string} options.task the goal, from the caller
	 * @param {Record<string, {complete: Function}>} options.models a provider per role
	 * @param {(role: string, input: object) => {system: string, messages: object[]}} options.buildPrompt
	 * @param {TaskBrowser} options.browser
	 * @param {object[]} options.tools catalogue entries the navigator may use
	 * @param {import('./settings.js').DEFAULT_LIMITS} options.limits
	 * @param {string[]} [options.allowedDomains]
	 * @param {boolean} [options.vision]
	 * @param {(event: object) => void} [options.onEvent] each plan, action and verdict as it happens
	 * @param {() => void} [options.onSecret] the task typed a secret it had not typed before into a secret field
	 *   (conceal masks it from now on), before it acts when the state marked the field
	 * @param {() => number} [options.now]
	 * @param {(ms: number, onTime: () => void) => () => void} [options.timer] starts a timer; returns its cancel
	 * @param {(phase: string, start: number, end: number) => void} [options.trace] a debugging hook (off when
	 *   absent): hears each phase of the task (a model call, an action, a read) with its start and end
	 *   (performance.timeOrigin + performance.now(), ms)
	 */
	constructor(options) {
		this.task = options.task;
		this.models = options.models;
		this.buildPrompt = options.buildPrompt;
		this.browser = options.browser;
		this.tools = [...options.tools, ASK_USER];
		/** @type {Map<string, object>} each tool's input schema */
		this.toolSchemas = new Map(this.tools.map(tool => [tool.name, tool.input_schema ?? {}]));
		this.limits = options.limits;
		this.allowedDomains = options.allowedDomains ?? [];
		this.vision = options.vision === true;
		/** What the task typed into secret fields: concealed in everything it keeps, shows and returns. */
		this.typedSecrets = new Set();
		this.onEvent = options.onEvent ?? (() => {});
		this.onSecret = options.onSecret ?? (() => {});
		this.now = options.now ?? Date.now;
		this.timer = options.timer ?? ((ms, onTime) => {
			const id = setTimeout(onTime, ms);
			return () => clearTimeout(id);
		});
		this.trace = options.trace;
		/** @type {Step[]} */
		this.history = [];
		this.usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, model_calls: 0 };
		/** The fences' nonce: one per task, so each prompt begins as the one before it (a provider's cache). */
		this.nonce = randomNonce();
		/** The page the navigator was last shown ({key: pageKey, text}), so an unchanged page's text is not sent again. */
		this.navigatorSaw = null;
		this.stepsTaken = 0;
		this.failures = 0;
		this.plan = '';
		this.nextGoal = '';
		this.verdict = null;
		/** While the person has paused the task: resolves when they resume. */
		this.gate = null;
		this.resumeGate = () => {};
		/** Set on resume: the planner runs again on the page as the person left it. */
		this.replan = false;
		/** The question the task waits on ({id, text, asked}), and what gives it its answer. */
		this.question = null;
		this.questionsAsked = 0;
		this.giveAnswer = () => {};
		/** The wall clock: what is left of timeout_ms, and the running timer's cancel. */
		this.timeLeft = this.limits.timeout_ms;
		this.clockStarted = 0;
		this.stopClock = () => {};
		this.onTime = () => {};
	}

	/**
	 * A text with every secret the task typed into a secret field
	 * replaced by a mask of its length (docs/security.md).
	 * @param {string} text
	 * @returns {string}
	 */
	conceal(text) {
		let out = text;
		for (const secret of this.typedSecrets)
			out = out.split(secret).join(mask(secret));
		return out;
	}

	/**
	 * Tells onEvent of a plan, action, verdict, question, pause or resume, concealed.
	 * @param {object} event
	 */
	emit(event) {
		this.onEvent(this.concealAll(event));
	}

	/**
	 * A copy of a value (a step, an event, a result) whose strings are concealed.
	 * @template T
	 * @param {T} value
	 * @returns {T}
	 */
	concealAll(value) {
		if (typeof value === 'string')
			return this.conceal(value);
		if (Array.isArray(value))
			return value.map(item => this.concealAll(item));
		if (value !== null && typeof value === 'object')
			return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.concealAll(item)]));
		return value;
	}

	/**
	 * An action's arguments as the task keeps and shows them: what it
	 * types into a secret field (type_value's text, press_keys' keys with
	 * its ref, or without one into a focused secret field, fill_form's
	 * values of those fields) as a mask of its length, the value
	 * remembered for conceal (press_keys': its text runs too, so a PIN
	 * followed by {Enter} is masked in the task's words). The action
	 * itself gets the real arguments.
	 * @param {string} tool
	 * @param {object} args
	 * @param {Set<string>} secretRefs the refs of secret fields
	 * @param {boolean} [secretFocus] press_keys without a ref went into a focused secret field
	 * @returns {object}
	 */
	keptArgs(tool, args, secretRefs, secretFocus = false) {
		const hide = (value, typed = [value]) => {
			this.remember(typed.map(String));
			return mask(String(value));
		};
		if (tool === 'type_value' && secretRefs.has(args.ref) && typeof args.text === 'string')
			return { ...args, text: hide(args.text) };
		if (tool === 'press_keys' && typeof args.keys === 'string' &&
		    (secretRefs.has(args.ref) || (args.ref === undefined && secretFocus)))
			return { ...args, keys: hide(args.keys, [args.keys, ...textRuns(args.keys)]) };
		if (tool === 'fill_form' && Array.isArray(args.fields) && args.fields.some(field => secretRefs.has(field?.ref)))
			return { ...args, fields: args.fields.map(field => secretRefs.has(field?.ref) ? { ...field, value: hide(field.value) } : field) };
		return args;
	}

	/**
	 * Remembers secrets the task typed, for conceal (those of SECRET_MIN
	 * characters or more), and tells onSecret when one is new.
	 * @param {string[]} secrets
	 */
	remember(secrets) {
		const fresh = secrets.filter(secret => secret.length >= SECRET_MIN && !this.typedSecrets.has(secret));
		fresh.forEach(secret => this.typedSecrets.add(secret));
		if (fresh.length > 0)
			this.onSecret();
	}

	/** Whether the person has paused the task. */
	get paused() {
		return this.gate !== null;
	}

	/**
	 * Pauses the task before its next action or model call, so the person
	 * can act in the page by hand; its wall clock stops meanwhile.
	 */
	pause() {
		if (this.gate !== null)
			return;
		this.gate = new Promise(resolve => {
			this.resumeGate = resolve;
		});
		this.stopClock();
		this.timeLeft -= this.now() - this.clockStarted;
		this.emit({ type: 'paused' });
	}

	/** Resumes a paused task: it reads the page again and plans from what it sees. */
	resume() {
		if (this.gate === null)
			return;
		this.gate = null;
		this.replan = true;
		this.resumeGate();
		this.startClock();
		this.emit({ type: 'resumed' });
	}

	/**
	 * Answers the question the task waits on.
	 * @param {string} text the answer ("done" after acting in the page)
	 * @param {string} [from] who answered, as the step records it
	 * @returns {boolean} whether a question was waiting
	 */
	answer(text, from = 'The person') {
		if (this.question === null)
			return false;
		this.giveAnswer({ text: String(text), from });
		return true;
	}

	/**
	 * Asks the person and waits for the answer (ask_user).
	 * @param {string} question
	 * @param {AbortSignal} signal a stop or the timeout ends the wait
	 * @returns {Promise<{text: string, from: string}>} the answer and who gave it
	 * @throws {TaskStop} waiting_for_user when the task's time runs out first
	 */
	async askUser(question, signal) {
		this.question = { id: `q${++this.questionsAsked}`, text: question, asked: this.now() };
		this.emit({ type: 'question', question });
		const answered = new Promise(resolve => {
			this.giveAnswer = resolve;
		});
		try {
			return await untilAborted(answered, signal, why => why instanceof TaskTimeout ?
			    new TaskStop(StopReason.WAITING_FOR_USER,
			        `Stopped: nobody answered "${question}" within the task's time (${this.limits.timeout_ms} ms).`) :
			    why);
		} finally {
			this.question = null;
			this.giveAnswer = () => {};
		}
	}

	/** Starts (or restarts) the wall clock with what is left of the timeout. */
	startClock() {
		this.clockStarted = this.now();
		this.stopClock = this.timer(Math.max(this.timeLeft, 0), this.onTime);
	}

	/**
	 * Runs one phase of the task; with the trace hook on, tells it how long
	 * the phase took (off, the phase just runs).
	 * @template T
	 * @param {string} phase
	 * @param {() => Promise<T>} work
	 * @returns {Promise<T>}
	 */
	timed(phase, work) {
		return timePhase(this.trace, phase, work);
	}

	/**
	 * Waits while the task is paused.
	 * @param {AbortSignal} signal a stop ends the wait
	 * @returns {Promise<boolean>} whether it waited (the page may have changed by hand)
	 */
	async waitWhilePaused(signal) {
		if (this.gate === null)
			return false;
		await untilAborted(this.gate, signal);
		return true;
	}

	/**
	 * Runs the task to its end. Never throws: every end is a result with a
	 * stop reason.
	 * @param {AbortSignal} signal aborts the task (cancel, stop_task)
	 * @returns {Promise<object>} the result (see finish)
	 */
	async run(signal) {
		const started = this.now();
		const controller = new AbortController();
		const forward = () => controller.abort(signal.reason);
		if (signal.aborted)
			forward();
		else
			signal.addEventListener('abort', forward, { once: true });
		this.onTime = () => controller.abort(new TaskTimeout(this.limits.timeout_ms));
		this.startClock();
		try {
			const answer = await this.loop(controller.signal);
			return this.finish(StopReason.DONE, answer, started);
		} catch (error) {
			if (error instanceof TaskStop)
				return this.finish(error.reason, error.message, started);
			if (controller.signal.aborted) {
				const timedOut = controller.signal.reason instanceof TaskTimeout;
				return this.finish(timedOut ? StopReason.TIMEOUT : StopReason.CANCELLED,
				    timedOut ? `Stopped: ${controller.signal.reason.message}.` :
				    `Stopped: ${signal.reason?.message ?? 'cancelled'}.`, started);
			}
			if (error?.name === 'ProviderError')
				return this.finish(StopReason.PROVIDER_ERROR, error.message, started);
			return this.finish(StopReason.PROVIDER_ERROR, `The agents failed unexpectedly: ${error?.message ?? error}`, started);
		} finally {
			this.stopClock();
			signal.removeEventListener('abort', forward);
		}
	}

	/**
	 * Plans, acts and validates until an answer is accepted.
	 * @param {AbortSignal} signal
	 * @returns {Promise<string>} the accepted answer
	 */
	async loop(signal) {
		let view = await this.readPage(signal);
		let mustPlan = true;
		let rejection;
		let sincePlan = 0;
		for (;;) {
			/* Paused: the person may change the page; resume reads it again and plans anew. */
			if (await this.waitWhilePaused(signal))
				view = await this.readPage(signal);
			if (mustPlan || this.replan) {
				this.replan = false;
				const planned = await this.runPlanner(view, rejection, signal);
				mustPlan = false;
				sincePlan = 0;
				rejection = undefined;
				if (planned.status === 'impossible')
					throw new TaskStop(StopReason.IMPOSSIBLE, planned.reason ?? planned.answer ?? 'The planner found the task impossible.');
				if (planned.status === 'done') {
					const verdict = await this.runValidator(planned.answer ?? '', view, signal);
					if (verdict.verdict === 'accept')
						return planned.answer ?? '';
					this.stopAtFailureLimit();
					rejection = verdict.reason;
					mustPlan = true;
					continue;
				}
			}
			/* Paused while the planner thought: wait, then plan again from the page as it is. */
			if (await this.waitWhilePaused(signal)) {
				view = await this.readPage(signal);
				continue;
			}
			if (this.stepsTaken >= this.limits.max_steps)
				throw new TaskStop(StopReason.MAX_STEPS,
				    `Stopped after ${this.stepsTaken} steps (max_steps) without an accepted answer.`);
			this.stepsTaken++;
			const decision = await this.runNavigator(view, signal);
			if (decision.actions.length === 0 && decision.done !== undefined) {
				const verdict = await this.runValidator(decision.done.answer, view, signal);
				if (verdict.verdict === 'accept')
					return decision.done.answer;
				this.stopAtFailureLimit();
				rejection = verdict.reason;
				mustPlan = true;
				continue;
			}
			view = await this.runActions(decision.actions, view, signal);
			this.stopAtFailureLimit();
			sincePlan++;
			/* The planner again: the sub-goal is reached, a step failed, or every planner_interval steps. */
			if (decision.goal_reached === true || sincePlan >= this.limits.planner_interval || this.failures >= REPLAN_AFTER_FAILURES)
				mustPlan = true;
		}
	}

	/**
	 * Ends the task once max_failures actions or answers in a row have
	 * failed or been rejected.
	 * @throws {TaskStop} at the limit
	 */
	stopAtFailureLimit() {
		if (this.failures >= this.limits.max_failures)
			throw new TaskStop(StopReason.MAX_FAILURES,
			    `Stopped after ${this.failures} failed actions or rejected answers in a row (max_failures).`);
	}

	/**
	 * Calls one role's model with its prompt, counting tokens against the budget.
	 * @param {string} role
	 * @param {object} input
	 * @param {AbortSignal} signal
	 * @returns {Promise<object>} the role's validated output
	 */
	async ask(role, input, signal) {
		if (this.usage.input_tokens + this.usage.output_tokens >= this.limits.token_budget)
			throw new TaskStop(StopReason.BUDGET,
			    `Stopped: the token budget (${this.limits.token_budget}) is used up.`);
		signal.throwIfAborted();
		const prompt = this.buildPrompt(role, input);
		const reply = await this.timed(`model ${role}`, () => this.models[role].complete({ role, ...prompt, signal }));
		signal.throwIfAborted();
		this.usage.input_tokens += reply.usage?.input_tokens ?? 0;
		this.usage.output_tokens += reply.usage?.output_tokens ?? 0;
		this.usage.cached_input_tokens += reply.usage?.cached_input_tokens ?? 0;
		this.usage.model_calls++;
		return reply.output;
	}

	/**
	 * The planner: a plan, the next sub-goal, or the end of the task.
	 * @param {PageView} view
	 * @param {string|undefined} rejection why the validator refused the last answer
	 * @param {AbortSignal} signal
	 */
	async runPlanner(view, rejection, signal) {
		const output = await this.ask('planner', {
			...this.promptBase(view, await this.pageText(view, signal)),
			rejection,
		}, signal);
		this.plan = output.plan;
		this.nextGoal = output.next_goal;
		/* A new plan (after a rejected answer, a resume, failures): the navigator gets the page's text again. */
		this.navigatorSaw = null;
		this.record({ tool: 'planner', outcome: 'planned', detail: brief(`${output.plan} Next: ${output.next_goal}`) });
		this.emit({ type: 'plan', plan: output.plan, next_goal: output.next_goal, status: output.status });
		return output;
	}

	/**
	 * The navigator: the next actions, or a claimed answer.
	 * @param {PageView} view
	 * @param {AbortSignal} signal
	 */
	async runNavigator(view, signal) {
		const input = { ...this.promptBase(view, await this.navigatorText(view, signal)), tools: this.tools };
		if (this.vision && this.browser.screenshot !== undefined)
			input.screenshot = await this.browser.screenshot(signal);
		return this.ask('navigator', input, signal);
	}

	/**
	 * The validator's verdict on a claimed answer.
	 * @param {string} answer
	 * @param {PageView} view
	 * @param {AbortSignal} signal
	 */
	async runValidator(answer, view, signal) {
		const output = await this.ask('validator', { ...this.promptBase(view, await this.pageText(view, signal)), claimed_answer: answer }, signal);
		this.verdict = { verdict: output.verdict, reason: output.reason, answer };
		this.record({ tool: 'validator', outcome: output.verdict === 'accept' ? 'accepted' : 'rejected',
		    detail: `${brief(answer)}: ${output.reason}` });
		this.emit({ type: 'verdict', verdict: output.verdict, reason: output.reason, answer });
		if (output.verdict !== 'accept')
			this.failures++;
		return output;
	}

	/**
	 * Reads the page's state.
	 * @param {AbortSignal} signal
	 * @returns {Promise<PageView>}
	 */
	readPage(signal) {
		return this.timed('read', () => this.browser.read(signal));
	}

	/**
	 * The page's text, read once per page view (the planner and the
	 * validator always see it; the navigator when the page changed).
	 * @param {PageView} view
	 * @param {AbortSignal} signal
	 * @returns {Promise<string>}
	 */
	async pageText(view, signal) {
		if (view.page_text === undefined)
			view.page_text = this.browser.pageText !== undefined ? await this.timed('page text', () => this.browser.pageText(signal)) : '';
		return view.page_text;
	}

	/**
	 * The page text for the navigator's prompt: read only when the page
	 * changed since its last prompt (another address or state, the
	 * fields' values aside) or the planner planned since, and sent only
	 * when it differs from the text it got then.
	 * @param {PageView} view
	 * @param {AbortSignal} signal
	 * @returns {Promise<string|undefined>} undefined: unchanged, not sent again
	 */
	async navigatorText(view, signal) {
		const saw = this.navigatorSaw;
		const key = pageKey(view);
		if (saw !== null && saw.key === key)
			return undefined;
		const text = await this.pageText(view, signal);
		this.navigatorSaw = { key, text };
		return saw !== null && saw.text === text ? undefined : text;
	}

	/**
	 * What every role's prompt is built from.
	 * @param {PageView} view
	 * @param {string|undefined} pageText the page's text, when this prompt carries it
	 */
	promptBase(view, pageText) {
		return {
			task: this.task,
			nonce: this.nonce,
			plan: this.plan,
			next_goal: this.nextGoal,
			history: this.history,
			state: view.state,
			page_text: pageText,
			url: view.url,
			title: view.title,
			allowed_domains: this.allowedDomains,
			steps_left: this.limits.max_steps - this.stepsTaken,
		};
	}

	/**
	 * Runs a step's actions in order, stopping early when one fails or
	 * the page changes under the rest.
	 * @param {{tool: string, args: object}[]} actions
	 * @param {PageView} view the state the actions were chosen on
	 * @param {AbortSignal} signal
	 * @returns {Promise<PageView>} the page after the step
	 */
	async runActions(actions, view, signal) {
		const chosen = actions.slice(0, MAX_ACTIONS_PER_STEP);
		for (let i = 0; i < chosen.length; i++) {
			const { tool, args } = chosen[i];
			/* Paused before this action: what was chosen on the old page is dropped. */
			if (await this.waitWhilePaused(signal)) {
				this.record({ tool, outcome: 'skipped',
				    detail: 'The person paused the task here and may have changed the page; the rest of this step was not run.' });
				return this.readPage(signal);
			}
			const acted = await this.runAction(tool, args ?? {}, view, signal);
			/* The page after the action: from the action's own reply when it gave it, else read once. */
			const after = acted.view ?? await this.readPage(signal);
			if (i === chosen.length - 1)
				return after;
			if (!acted.ok || this.pageChanged(view, after)) {
				const left = chosen.slice(i + 1).map(action => action.tool).join(', ');
				this.record({ tool: chosen[i + 1].tool, outcome: 'skipped',
				    detail: `${acted.ok ? 'The page changed' : 'The action failed'}, so the rest of this step (${left}) was not run; choose again from the new state.` });
				return after;
			}
			view = after;
		}
		return view;
	}

	/**
	 * Runs one action and records its outcome.
	 * @param {string} tool
	 * @param {object} args
	 * @param {PageView} view
	 * @param {AbortSignal} signal
	 * @returns {Promise<{ok: boolean, view?: PageView}>} whether it succeeded, and the page after it when the action reported it
	 */
	async runAction(tool, args, view, signal) {
		const label = typeof args.ref === 'string' ? view.labels.get(args.ref) : undefined;
		const step = { tool, args: this.keptArgs(tool, args, view.secrets ?? new Set()), label };
		if (!this.toolSchemas.has(tool))
			return this.failed(step, 'refused', `There is no action "${tool}". Use one of: ${[...this.toolSchemas.keys()].join(', ')}.`);
		const wrong = schemaError(this.toolSchemas.get(tool), args, 'args');
		if (wrong !== null)
			return this.failed(step, 'error', `${ErrorCode.INVALID_ARGUMENT}: ${wrong}; see ${tool}'s arguments in the tool list.`);
		const target = typeof args.url === 'string' ? args.url : undefined;
		if (target !== undefined && !domainAllowed(target, this.allowedDomains))
			return this.failed(step, 'refused', domainRefusal(target, this.allowedDomains));
		if (tool === ASK_USER.name) {
			const { text, from } = await this.askUser(args.question, signal);
			this.failures = 0;
			const detail = brief(`${from} answered: ${text}`);
			this.record({ ...step, outcome: 'ok', detail });
			this.emit({ type: 'action', step: this.stepsTaken, tool, args: step.args, outcome: 'ok', detail });
			return { ok: true };
		}
		let reply;
		try {
			reply = await this.timed(`act ${tool}`, () => this.browser.act(tool, args, signal));
		} catch (error) {
			signal.throwIfAborted();
			const code = error?.code ?? ErrorCode.INTERNAL;
			/* The person took control back: stop, do not retry around it. */
			if (code === ErrorCode.PAUSED_BY_USER)
				throw new TaskStop(StopReason.PAUSED_BY_USER, `Stopped: ${error.message}`);
			const blocked = this.browser.blocked();
			if (blocked.length > 0)
				return this.refuse(step, blocked, undefined, signal);
			const hint = RECOVERABLE.has(code) ? ' The page was read again: pick the element from the new state.' : '';
			return this.failed(step, 'error', `${code}: ${error?.message ?? error}${hint}`);
		}
		/* A secret field the state did not mark (a ref from an older state, the focused field): the tool says so. */
		if (reply.secretRefs?.length > 0 || reply.secretFocus === true)
			step.args = this.keptArgs(tool, args, new Set(reply.secretRefs), reply.secretFocus === true);
		const blocked = this.browser.blocked();
		const left = reply.url !== undefined && !domainAllowed(reply.url, this.allowedDomains);
		if (blocked.length > 0 || left)
			return this.refuse(step, blocked, left ? reply.url : undefined, signal);
		this.failures = 0;
		this.record({ ...step, outcome: 'ok', detail: brief(reply.text) });
		this.emit({ type: 'action', step: this.stepsTaken, tool, label, args: step.args, outcome: 'ok', detail: brief(reply.text) });
		return { ok: true, view: reply.view };
	}

	/**
	 * Refuses an action that led outside the allowed domains: the
	 * browser's fence stopped pages (the first is named, with its domain),
	 * or the tab ended up outside. A tab left on the outside page or the
	 * browser's error page for it goes back.
	 * @param {object} step
	 * @param {{url: string, here: boolean}[]} blocked
	 * @param {string|undefined} outside the tab's URL when it lies outside
	 * @param {AbortSignal} signal
	 * @returns {Promise<{ok: false}>}
	 */
	async refuse(step, blocked, outside, signal) {
		const more = blocked.length > 1 ? ` (and ${blocked.length - 1} more)` : '';
		let detail = blocked.length > 0 ?
		    `The browser blocked a page${more}: ${domainRefusal(blocked[0].url, this.allowedDomains)}` :
		    domainRefusal(outside, this.allowedDomains);
		if (outside !== undefined || blocked.some(entry => entry.here)) {
			try {
				await this.browser.back(signal);
				detail += ' The tab went back.';
			} catch (error) {
				signal.throwIfAborted();
				detail += ` Going back failed (${error?.message ?? error}): navigate to an allowed page.`;
			}
		}
		return this.failed(step, 'refused', detail);
	}

	/**
	 * Records a failed or refused action.
	 * @returns {{ok: false}}
	 */
	failed(step, outcome, detail) {
		this.failures++;
		this.record({ ...step, outcome, detail: brief(detail) });
		this.emit({ type: 'action', step: this.stepsTaken, ...step, outcome, detail: brief(detail) });
		return { ok: false };
	}

	/**
	 * Says whether the page changed under a multi-action step: a new
	 * document or elements that were not there.
	 * @param {PageView} before
	 * @param {PageView} after
	 */
	pageChanged(before, after) {
		if (before.url !== after.url)
			return true;
		for (const ref of after.labels.keys())
			if (!before.labels.has(ref))
				return true;
		return false;
	}

	/** @param {Omit<Step, 'step'>} entry kept concealed (conceal) */
	record(entry) {
		this.history.push(this.concealAll({ step: this.stepsTaken, ...entry }));
	}

	/**
	 * The task's result, concealed (conceal).
	 * @param {string} reason
	 * @param {string} message the answer when done, else why it stopped
	 * @param {number} started
	 */
	finish(reason, message, started) {
		return this.concealAll({
			stop_reason: reason,
			answer: reason === StopReason.DONE ? message : null,
			message: reason === StopReason.DONE ? `Done in ${this.stepsTaken} steps.` : message,
			verdict: this.verdict,
			steps: this.history.map(entry => ({ ...entry })),
			steps_taken: this.stepsTaken,
			usage: { ...this.usage },
			duration_ms: this.now() - started,
		});
	}
}
