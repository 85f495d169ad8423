// The icons the manifest names (toolbar, extensions page, store): each is
// a PNG of the size its key says, with an alpha channel.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXTENSION = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(EXTENSION, 'manifest.json'), 'utf8'));

// Width, height and colour type of a PNG file (its IHDR chunk).
function pngHeader(path) {
	const bytes = readFileSync(join(EXTENSION, path));
	assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${path} is a PNG`);
	assert.equal(bytes.toString('ascii', 12, 16), 'IHDR');
	return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), colourType: bytes[25] };
}

test('the extension and its toolbar button have icons from 16 to 128 px, each the size it claims', () => {
	assert.deepEqual(Object.keys(manifest.icons), ['16', '32', '48', '128']);
	for (const icons of [manifest.icons, manifest.action.default_icon]) {
		for (const [size, path] of Object.entries(icons)) {
			const header = pngHeader(path);
			assert.equal(header.width, Number(size), path);
			assert.equal(header.height, Number(size), path);
			assert.equal(header.colourType, 6, `${path} is RGBA`);
		}
	}
});
