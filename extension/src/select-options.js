/**
 * Matching select_option's wanted values to a select's options: by value
 * first, then by label (trimmed, case-insensitive), and the words for the
 * options a select has. Pure; the page function in actions/interact.js
 * carries a copy of matchOptions (page code cannot import modules).
 * @module select-options
 */

/** List at most this many options in an error. */
export const OPTIONS_LISTED = 20;

/**
 * The option indexes for the wanted values.
 * @param {Array<{value: string, label: string, disabled?: boolean}>} options
 * @param {string[]} wanted
 * @returns {{indexes: number[], missing: string[], disabled: string[]}}
 */
export function matchOptions(options, wanted) {
	const indexes = [];
	const missing = [];
	const disabled = [];
	for (const want of wanted) {
		let i = options.findIndex(o => o.value === want);
		if (i < 0)
			i = options.findIndex(o => o.label.trim() === want.trim());
		if (i < 0)
			i = options.findIndex(o => o.label.trim().toLowerCase() === want.trim().toLowerCase() ||
			    o.value.toLowerCase() === want.trim().toLowerCase());
		if (i < 0)
			missing.push(want);
		else if (options[i].disabled)
			disabled.push(want);
		else if (!indexes.includes(i))
			indexes.push(i);
	}
	return { indexes, missing, disabled };
}

/**
 * "Canada" (value "ca"), ... for messages, cut after max options.
 * @param {Array<{value: string, label: string}>} options
 * @param {number} [max]
 * @returns {string}
 */
export function describeOptions(options, max = OPTIONS_LISTED) {
	const shown = options.slice(0, max).map(o =>
	    o.value === o.label ? JSON.stringify(o.label) : `${JSON.stringify(o.label)} (value ${JSON.stringify(o.value)})`);
	if (options.length > max)
		shown.push(`and ${options.length - max} more`);
	return shown.length === 0 ? 'it has no options' : shown.join(', ');
}
