// Draws the extension's icons (extension/icons/icon-N.png, N = 16, 32, 48,
// 128): a white bridge, arch over deck, on a blue rounded square. Run it
// again after changing the drawing: node scripts/icons.mjs
// The PNGs are written by hand (zlib from Node, no image library).

import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SIZES = [16, 32, 48, 128];
const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'extension', 'icons');
const BLUE = [29, 78, 216];
const WHITE = [255, 255, 255];
/* Samples per pixel side, for smooth edges. */
const SUPERSAMPLE = 4;

// What covers a point of the unit square: 'bridge', 'background' or null.
function paintAt(x, y) {
	const corner = 0.2;
	const dx = Math.max(Math.abs(x - 0.5) - (0.5 - corner), 0);
	const dy = Math.max(Math.abs(y - 0.5) - (0.5 - corner), 0);
	if (dx * dx + dy * dy > corner * corner)
		return null;
	const deck = y >= 0.6 && y <= 0.69 && x >= 0.12 && x <= 0.88;
	const r = Math.hypot(x - 0.5, y - 0.9);
	const arch = y < 0.6 && r >= 0.32 && r <= 0.42;
	const pier = y > 0.69 && y <= 0.86 && ((x >= 0.2 && x <= 0.27) || (x >= 0.73 && x <= 0.8));
	return deck || arch || pier ? 'bridge' : 'background';
}

// One icon's RGBA pixels.
function draw(size) {
	const pixels = Buffer.alloc(size * size * 4);
	for (let py = 0; py < size; py++) {
		for (let px = 0; px < size; px++) {
			let bridge = 0, inside = 0;
			for (let sy = 0; sy < SUPERSAMPLE; sy++) {
				for (let sx = 0; sx < SUPERSAMPLE; sx++) {
					const paint = paintAt((px + (sx + 0.5) / SUPERSAMPLE) / size, (py + (sy + 0.5) / SUPERSAMPLE) / size);
					if (paint !== null)
						inside++;
					if (paint === 'bridge')
						bridge++;
				}
			}
			const samples = SUPERSAMPLE * SUPERSAMPLE;
			const mix = inside === 0 ? 0 : bridge / inside;
			const at = (py * size + px) * 4;
			for (let c = 0; c < 3; c++)
				pixels[at + c] = Math.round(BLUE[c] * (1 - mix) + WHITE[c] * mix);
			pixels[at + 3] = Math.round(255 * inside / samples);
		}
	}
	return pixels;
}

// CRC-32 of a buffer, as PNG chunks need.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++)
		c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});
function crc32(buffer) {
	let c = 0xffffffff;
	for (const byte of buffer)
		c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

// One PNG chunk: length, type, data, CRC.
function chunk(type, data) {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, 'ascii');
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
	return Buffer.concat([head, data, crc]);
}

// An RGBA image as a PNG file.
function png(size, pixels) {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(size, 0);
	header.writeUInt32BE(size, 4);
	header[8] = 8;	/* bits per channel */
	header[9] = 6;	/* RGBA */
	const rows = Buffer.alloc(size * (size * 4 + 1));
	for (let y = 0; y < size; y++)
		pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
	]);
}

for (const size of SIZES)
	writeFileSync(join(OUT, `icon-${size}.png`), png(size, draw(size)));
