/**
 * What each role answers: the JSON schema handed to the model (as the
 * parameters of a function it must call) and the check every reply passes
 * before the loop uses it. A failed check names what is wrong, for the one
 * repair retry.
 * @module agents/roles
 */

import { schemaError } from '../json-schema.js';

/** Most actions in one navigator step: the schema's limit, and where the step loop stops. */
export const MAX_ACTIONS_PER_STEP = 3;

/** The output schema of each role. */
export const ROLE_SCHEMAS = Object.freeze({
	planner: {
		type: 'object',
		properties: {
			plan: { type: 'string', description: 'The plan in a few short numbered lines, updated to what the page shows now.' },
			next_goal: { type: 'string', description: 'The one sub-goal the navigator should reach next.' },
			status: { enum: ['continue', 'done', 'impossible'], description: 'done: the task is complete and answer holds the result; impossible: it cannot be done (reason says why).' },
			answer: { type: 'string', description: 'With status done: the final answer for the user.' },
			reason: { type: 'string', description: 'With status impossible: why.' },
		},
		required: ['plan', 'next_goal', 'status'],
		additionalProperties: false,
	},
	navigator: {
		type: 'object',
		properties: {
			thought: { type: 'string', description: 'One short sentence: what you see and why these actions.' },
			actions: {
				type: 'array',
				maxItems: MAX_ACTIONS_PER_STEP,
				description: `1 to ${MAX_ACTIONS_PER_STEP} actions to run in order; empty only together with done.`,
				items: {
					type: 'object',
					properties: {
						tool: { type: 'string', description: 'The name of one of the tools listed.' },
						args: { type: 'object', description: 'The tool\'s arguments, as its schema says.' },
					},
					required: ['tool', 'args'],
					additionalProperties: false,
				},
			},
			goal_reached: { type: 'boolean', description: 'true when these actions complete the current sub-goal; the planner then gives the next one.' },
			done: {
				type: 'object',
				description: 'Only when the task is complete: the final answer. Leave actions empty then.',
				properties: { answer: { type: 'string' } },
				required: ['answer'],
				additionalProperties: false,
			},
		},
		required: ['actions'],
		additionalProperties: false,
	},
	validator: {
		type: 'object',
		properties: {
			verdict: { enum: ['accept', 'reject'], description: 'accept only when the page shows the answer is right and complete.' },
			reason: { type: 'string', description: 'One sentence: the evidence on the page, or what is wrong or missing.' },
		},
		required: ['verdict', 'reason'],
		additionalProperties: false,
	},
});

/**
 * Checks a role's reply: its schema, then what the schema cannot say.
 * @param {'planner'|'navigator'|'validator'} role
 * @param {unknown} value
 * @returns {string|null} what is wrong, or null when the reply is usable
 */
export function checkOutput(role, value) {
	const wrong = schemaError(ROLE_SCHEMAS[role], value, 'the reply');
	if (wrong !== null)
		return wrong;
	if (role === 'navigator' && value.actions.length === 0 && value.done === undefined)
		return 'the reply has no actions and no done: give 1 to 3 actions, or done with the answer';
	if (role === 'navigator' && value.actions.length > 0 && value.done !== undefined)
		return 'the reply has both actions and done: give actions now, and done only in a later reply when the page shows the result';
	if (role === 'planner' && value.status === 'done' && typeof value.answer !== 'string')
		return 'status is done but answer is missing';
	return null;
}
