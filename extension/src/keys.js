/**
 * Key sequences for type_value and press_keys: plain text with keys in
 * braces ("Hello{Enter}", "{Control+A}{Backspace}"); "{{" and "}}" type a
 * brace. Parsing is strict: any other brace is an error, so text is never
 * typed half-way because a brace was misread.
 *
 * Also maps keys and characters to Chrome DevTools Protocol
 * Input.dispatchKeyEvent parameters (US layout).
 * @module keys
 */

/** CDP modifier bits. */
export const MODIFIER_BITS = Object.freeze({ Alt: 1, Control: 2, Meta: 4, Shift: 8 });

const MODIFIER_ALIASES = {
	alt: 'Alt', option: 'Alt',
	control: 'Control', ctrl: 'Control',
	meta: 'Meta', cmd: 'Meta', command: 'Meta', super: 'Meta', win: 'Meta',
	shift: 'Shift',
};

const MODIFIER_KEYS = {
	Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1 },
	Control: { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1 },
	Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1 },
	Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 },
};

/** Named keys: canonical name -> definition. */
const NAMED_KEYS = {
	Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
	Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
	Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
	Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
	Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
	Insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
	Home: { key: 'Home', code: 'Home', keyCode: 36 },
	End: { key: 'End', code: 'End', keyCode: 35 },
	PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
	PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
	ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
	ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
	ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
	ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
	Space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
	CapsLock: { key: 'CapsLock', code: 'CapsLock', keyCode: 20 },
	ContextMenu: { key: 'ContextMenu', code: 'ContextMenu', keyCode: 93 },
	Plus: { key: '+', code: 'Equal', keyCode: 187, text: '+' },
};
for (let n = 1; n <= 12; n++)
	NAMED_KEYS[`F${n}`] = { key: `F${n}`, code: `F${n}`, keyCode: 111 + n };

const KEY_ALIASES = {
	return: 'Enter', esc: 'Escape', del: 'Delete', ins: 'Insert',
	up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight',
	pgup: 'PageUp', pgdn: 'PageDown', spacebar: 'Space',
};

const NAMED_BY_LOWER = new Map();
for (const name of Object.keys(NAMED_KEYS))
	NAMED_BY_LOWER.set(name.toLowerCase(), name);
for (const [alias, name] of Object.entries(KEY_ALIASES))
	NAMED_BY_LOWER.set(alias, name);

/* US layout: punctuation -> [code, keyCode, shifted]. */
const PUNCTUATION = {
	' ': ['Space', 32, false],
	'-': ['Minus', 189, false], '_': ['Minus', 189, true],
	'=': ['Equal', 187, false], '+': ['Equal', 187, true],
	'[': ['BracketLeft', 219, false], '{': ['BracketLeft', 219, true],
	']': ['BracketRight', 221, false], '}': ['BracketRight', 221, true],
	'\\': ['Backslash', 220, false], '|': ['Backslash', 220, true],
	';': ['Semicolon', 186, false], ':': ['Semicolon', 186, true],
	'\'': ['Quote', 222, false], '"': ['Quote', 222, true],
	',': ['Comma', 188, false], '<': ['Comma', 188, true],
	'.': ['Period', 190, false], '>': ['Period', 190, true],
	'/': ['Slash', 191, false], '?': ['Slash', 191, true],
	'`': ['Backquote', 192, false], '~': ['Backquote', 192, true],
	'!': ['Digit1', 49, true], '@': ['Digit2', 50, true], '#': ['Digit3', 51, true],
	'$': ['Digit4', 52, true], '%': ['Digit5', 53, true], '^': ['Digit6', 54, true],
	'&': ['Digit7', 55, true], '*': ['Digit8', 56, true], '(': ['Digit9', 57, true],
	')': ['Digit0', 48, true],
};

/** A parse failure; the message says how to write the sequence instead. */
export class KeySequenceError extends Error {
	/**
	 * @param {string} message
	 * @param {number} position index in the sequence
	 */
	constructor(message, position) {
		super(message);
		this.name = 'KeySequenceError';
		this.position = position;
	}
}

/**
 * A key on the US layout, for a single printable ASCII character, or
 * undefined if the character is not on it.
 * @param {string} ch one character
 * @returns {{key: string, code: string, keyCode: number, text: string, shifted: boolean}|undefined}
 */
export function characterKey(ch) {
	if (/^[a-z]$/.test(ch))
		return { key: ch, code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0), text: ch, shifted: false };
	if (/^[A-Z]$/.test(ch))
		return { key: ch, code: `Key${ch}`, keyCode: ch.charCodeAt(0), text: ch, shifted: true };
	if (/^[0-9]$/.test(ch))
		return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch, shifted: false };
	const p = PUNCTUATION[ch];
	if (p !== undefined)
		return { key: ch, code: p[0], keyCode: p[1], text: ch, shifted: p[2] };
	return undefined;
}

/**
 * Parses one key name or combination ("Enter", "Control+A", "ctrl+shift+t").
 * @param {string} name the text between the braces
 * @param {number} position where it starts, for errors
 * @returns {{type: 'key', key: string, code: string, keyCode: number, text?: string, modifiers: string[], name: string}}
 */
export function parseKeyName(name, position = 0) {
	const parts = name.split('+');
	if (parts.some(part => part === ''))
		throw new KeySequenceError(`"{${name}}" at position ${position} has an empty part; ` +
		    'write combinations like {Control+A}; for the plus key write {Plus}.', position);
	const modifiers = [];
	for (const part of parts.slice(0, -1)) {
		const modifier = MODIFIER_ALIASES[part.toLowerCase()];
		if (modifier === undefined)
			throw new KeySequenceError(`"${part}" in "{${name}}" at position ${position} is not a modifier; ` +
			    'combinations start with Control, Shift, Alt or Meta, as in {Control+Shift+T}.', position);
		if (!modifiers.includes(modifier))
			modifiers.push(modifier);
	}
	const last = parts[parts.length - 1];
	const lastModifier = MODIFIER_ALIASES[last.toLowerCase()];
	let def;
	let canonical;
	if (lastModifier !== undefined) {
		def = MODIFIER_KEYS[lastModifier];
		canonical = lastModifier;
	} else if (NAMED_BY_LOWER.has(last.toLowerCase())) {
		canonical = NAMED_BY_LOWER.get(last.toLowerCase());
		def = NAMED_KEYS[canonical];
	} else if (last.length === 1 && characterKey(last) !== undefined) {
		const shift = modifiers.includes('Shift');
		const base = characterKey(/^[A-Za-z]$/.test(last) ?
		    (shift ? last.toUpperCase() : last.toLowerCase()) : last);
		def = { key: base.key, code: base.code, keyCode: base.keyCode, text: base.text };
		canonical = /^[a-z]$/i.test(last) ? last.toUpperCase() : last;
	} else {
		throw new KeySequenceError(`Unknown key "{${name}}" at position ${position}. Known keys: ` +
		    `${Object.keys(NAMED_KEYS).filter(k => !/^F\d/.test(k) || k === 'F1').join(', ')} ... F12, ` +
		    'single characters, and modifiers Control, Shift, Alt, Meta. To type a brace, double it: {{ or }}.', position);
	}
	const token = {
		type: 'key',
		key: def.key,
		code: def.code,
		keyCode: def.keyCode,
		modifiers,
		name: [...modifiers, canonical].join('+'),
	};
	if (def.location !== undefined)
		token.location = def.location;
	/* With Control, Alt or Meta held a key types nothing. */
	if (def.text !== undefined &&
	    !modifiers.some(m => m === 'Control' || m === 'Alt' || m === 'Meta'))
		token.text = def.text;
	return token;
}

/**
 * Parses a key sequence into text runs and key presses.
 * @param {string} sequence
 * @returns {Array<{type: 'text', text: string}|ReturnType<typeof parseKeyName>>}
 * @throws {KeySequenceError}
 */
export function parseKeySequence(sequence) {
	const tokens = [];
	let text = '';
	const flush = () => {
		if (text !== '') {
			tokens.push({ type: 'text', text });
			text = '';
		}
	};
	let i = 0;
	while (i < sequence.length) {
		const ch = sequence[i];
		if (ch === '{') {
			if (sequence[i + 1] === '{') {
				text += '{';
				i += 2;
				continue;
			}
			const close = sequence.indexOf('}', i + 1);
			const inner = close === -1 ? '' : sequence.slice(i + 1, close);
			if (close === -1 || !/^[^\s{}]+$/.test(inner))
				throw new KeySequenceError(`"{" at position ${i} does not start a key such as {Enter}. ` +
				    'To type a brace, double it: {{ types "{" and }} types "}".', i);
			flush();
			tokens.push(parseKeyName(inner, i));
			i = close + 1;
			continue;
		}
		if (ch === '}') {
			if (sequence[i + 1] === '}') {
				text += '}';
				i += 2;
				continue;
			}
			throw new KeySequenceError(`"}" at position ${i} closes no key. ` +
			    'To type a brace, double it: }} types "}" and {{ types "{".', i);
		}
		text += ch;
		i++;
	}
	flush();
	return tokens;
}

/**
 * The CDP Input.dispatchKeyEvent calls that press one key token: modifiers
 * down, the key down and up, modifiers up.
 * @param {{key: string, code: string, keyCode: number, text?: string, modifiers: string[], location?: number}} token
 * @returns {object[]} parameter objects, in order
 */
export function keyPressEvents(token) {
	const events = [];
	let bits = 0;
	for (const name of token.modifiers) {
		bits |= MODIFIER_BITS[name];
		const m = MODIFIER_KEYS[name];
		events.push({ type: 'rawKeyDown', modifiers: bits, key: m.key, code: m.code,
		    windowsVirtualKeyCode: m.keyCode, location: m.location });
	}
	const isModifier = Object.hasOwn(MODIFIER_BITS, token.key);
	const own = isModifier ? bits | MODIFIER_BITS[token.key] : bits;
	const down = { type: token.text ? 'keyDown' : 'rawKeyDown', modifiers: own,
	    key: token.key, code: token.code, windowsVirtualKeyCode: token.keyCode };
	if (token.text) {
		down.text = token.text;
		down.unmodifiedText = token.text;
	}
	if (token.location !== undefined)
		down.location = token.location;
	const commands = editingCommands(token);
	if (commands.length > 0)
		down.commands = commands;
	events.push(down);
	const up = { type: 'keyUp', modifiers: isModifier ? bits : own, key: token.key,
	    code: token.code, windowsVirtualKeyCode: token.keyCode };
	if (token.location !== undefined)
		up.location = token.location;
	events.push(up);
	for (const name of [...token.modifiers].reverse()) {
		bits &= ~MODIFIER_BITS[name];
		const m = MODIFIER_KEYS[name];
		events.push({ type: 'keyUp', modifiers: bits, key: m.key, code: m.code,
		    windowsVirtualKeyCode: m.keyCode, location: m.location });
	}
	return events;
}

/**
 * Editor commands Chrome needs spelled out for a shortcut to act on text.
 * @param {{key: string, modifiers: string[]}} token
 * @returns {string[]}
 */
export function editingCommands(token) {
	if (token.modifiers.length !== 1 ||
	    (token.modifiers[0] !== 'Control' && token.modifiers[0] !== 'Meta'))
		return [];
	switch (token.key.toLowerCase()) {
	case 'a': return ['selectAll'];
	case 'c': return ['copy'];
	case 'x': return ['cut'];
	case 'v': return ['paste'];
	case 'z': return ['undo'];
	case 'y': return ['redo'];
	default: return [];
	}
}

/**
 * The CDP calls that type one character: a key press for characters on the
 * US layout, otherwise insertText (a null key event list).
 * @param {string} ch one character (a code point)
 * @returns {object[]|null}
 */
export function characterEvents(ch) {
	if (ch === '\n' || ch === '\r')
		return keyPressEvents(parseKeyName('Enter'));
	const k = characterKey(ch);
	if (k === undefined)
		return null;
	return [
		{ type: 'keyDown', modifiers: 0, key: k.key, code: k.code,
		    windowsVirtualKeyCode: k.keyCode, text: k.text, unmodifiedText: k.text },
		{ type: 'keyUp', modifiers: 0, key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode },
	];
}

/**
 * Counts what a parsed sequence types, for messages: characters of text
 * and key presses.
 * @param {ReturnType<typeof parseKeySequence>} tokens
 * @returns {{characters: number, keys: string[]}}
 */
export function summarizeTokens(tokens) {
	let characters = 0;
	const keys = [];
	for (const token of tokens) {
		if (token.type === 'text')
			characters += [...token.text].length;
		else
			keys.push(token.name);
	}
	return { characters, keys };
}
