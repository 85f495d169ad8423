/**
 * Reassembles host messages that arrive as `chunk` messages
 * (docs/protocol.md, section 1): base64 pieces joined as bytes, then
 * decoded as UTF-8 JSON.
 * @module chunks
 */

/**
 * Decodes base64 to bytes.
 * @param {string} data
 * @returns {Uint8Array}
 */
export function base64ToBytes(data) {
	const binary = atob(data);
	const bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++)
		bytes[i] = binary.charCodeAt(i);
	return bytes;
}

/** Collects chunks per id and hands back each whole message. */
export class ChunkAssembler {
	constructor() {
		/** @type {Map<unknown, {count: number, parts: Uint8Array[]}>} */
		this.buffers = new Map();
	}

	/**
	 * Takes one chunk message. Returns the reassembled message when this was
	 * the last chunk, null while more are expected.
	 * @param {{id: unknown, index: number, count: number, data: string}} chunk
	 * @returns {object|null}
	 * @throws {Error} on a malformed chunk or one out of order (the partial
	 *   message is dropped)
	 */
	add(chunk) {
		const { id, index, count, data } = chunk;
		if (id === undefined || id === null || !Number.isInteger(index) ||
		    !Number.isInteger(count) || count < 1 || index < 0 ||
		    index >= count || typeof data !== 'string') {
			this.buffers.delete(id);
			throw new Error(`malformed chunk ${JSON.stringify({ id, index, count })}`);
		}
		let buffer = this.buffers.get(id);
		if (index === 0) {
			buffer = { count, parts: [] };
			this.buffers.set(id, buffer);
		}
		if (buffer === undefined || buffer.count !== count ||
		    buffer.parts.length !== index) {
			this.buffers.delete(id);
			throw new Error(`chunk ${index}/${count} of message ${id} arrived out of order; message dropped`);
		}
		buffer.parts.push(base64ToBytes(data));
		if (buffer.parts.length < count)
			return null;
		this.buffers.delete(id);
		let length = 0;
		for (const part of buffer.parts)
			length += part.length;
		const whole = new Uint8Array(length);
		let offset = 0;
		for (const part of buffer.parts) {
			whole.set(part, offset);
			offset += part.length;
		}
		const text = new TextDecoder('utf-8', { fatal: true }).decode(whole);
		return JSON.parse(text);
	}

	/** Drops every partial message (the port disconnected). */
	clear() {
		this.buffers.clear();
	}

	/** @returns {number} how many messages are partly received */
	get pending() {
		return this.buffers.size;
	}
}
