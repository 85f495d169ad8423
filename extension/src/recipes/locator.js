/**
 * Locators: how a recipe names an element without a ref, so that it is
 * found again after a reload or a small change to the page. A locator is
 * the element's role and accessible name as the page state shows them,
 * the context the state gives an unnamed control, and nth: which of
 * several equal matches it is (0-based, in state order). Pure.
 * @module recipes/locator
 */

/**
 * A recipe's element locator.
 * @typedef {object} Target
 * @property {string} role
 * @property {string} name
 * @property {string} [context] the state's context of an unnamed control
 * @property {number} nth which of the equal matches, 0 for the first
 */

/** How many of the page's elements an error offers instead of a missing one. */
export const CANDIDATES = 3;

/**
 * Whether a state element answers to a locator's role, name and context.
 * @param {Target} target
 * @param {import('../page-state/builder.js').StateElement} element
 * @returns {boolean}
 */
function answers(target, element) {
	return element.role === target.role && (element.name ?? '') === target.name &&
	    (element.context ?? '') === (target.context ?? '');
}

/**
 * The locator of an element of a state.
 * @param {import('../page-state/builder.js').StateElement} element
 * @param {import('../page-state/builder.js').StateElement[]} elements every element of the same state, in order
 * @returns {Target}
 */
export function targetOf(element, elements) {
	const target = { role: element.role, name: element.name ?? '' };
	if (element.context !== undefined && element.context !== '')
		target.context = element.context;
	const before = elements.slice(0, Math.max(0, elements.indexOf(element)));
	target.nth = before.filter(other => answers(target, other)).length;
	return target;
}

/**
 * The element a locator names in a state, if it is there.
 * @param {Target} target
 * @param {import('../page-state/builder.js').StateElement[]} elements
 * @returns {import('../page-state/builder.js').StateElement|undefined}
 */
export function resolveTarget(target, elements) {
	return elements.filter(element => answers(target, element))[target.nth ?? 0];
}

/**
 * How far apart two names are: the edit distance of their lower-case forms.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
function distance(a, b) {
	a = a.toLowerCase();
	b = b.toLowerCase();
	let row = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const next = [i];
		for (let j = 1; j <= b.length; j++)
			next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
		row = next;
	}
	return row[b.length];
}

/**
 * The page's elements nearest to a locator that found nothing: those of
 * its role first, then by how close their name is to its name.
 * @param {Target} target
 * @param {import('../page-state/builder.js').StateElement[]} elements
 * @param {number} [count]
 * @returns {import('../page-state/builder.js').StateElement[]}
 */
export function nearest(target, elements, count = CANDIDATES) {
	const score = element => (element.role === target.role ? 0 : 1000) + distance(element.name ?? '', target.name);
	return elements.map(element => ({ element, score: score(element) }))
	    .sort((a, b) => a.score - b.score).slice(0, count).map(entry => entry.element);
}

/**
 * A locator or an element in words: `button "Place order"`, with its
 * context and, past the first of equal matches, which one.
 * @param {Target|import('../page-state/builder.js').StateElement} target
 * @returns {string}
 */
export function describeTarget(target) {
	let text = `${target.role} ${JSON.stringify(target.name ?? '')}`;
	if (target.context)
		text += ` in ${JSON.stringify(target.context)}`;
	if (target.nth > 0)
		text += ` (match ${target.nth + 1})`;
	return text;
}
