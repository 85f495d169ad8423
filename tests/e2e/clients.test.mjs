// docs/clients.md followed literally: for Claude Code, Claude Desktop,
// Cursor and VS Code, every command and JSON block of the client's section
// is taken from the file, written where the section says under a temporary
// HOME (with the token and the program's path filled in, as the section
// tells the reader to), read back, and played by the MCP SDK the way the
// client starts servers: HTTP with the same URL and headers, stdio with the
// same command and arguments and the SDK's minimal environment. Each then
// calls host_status and reads a page in Chromium.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

import { startBridge } from './harness.mjs';

const DOC = readFileSync(join(process.env.BRIDGE_SRCDIR, 'docs', 'clients.md'), 'utf8');

// One "## Title" section of the document.
function section(title) {
	const start = DOC.indexOf(`\n## ${title}\n`);
	assert.ok(start !== -1, `docs/clients.md has no "## ${title}" section`);
	const end = DOC.indexOf('\n## ', start + 1);
	return DOC.slice(start, end === -1 ? undefined : end);
}

// The ```json blocks of a section, parsed.
function jsonBlocks(text) {
	return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map(m => m[1]);
}

// The indented command blocks of a section, continuation lines joined.
function commands(text) {
	return [...text.matchAll(/\n\n((?: {4}.*\n)+)/g)]
	    .map(m => m[1].split('\n').map(line => line.slice(4)).join('\n').replace(/\\\n\s*/g, '').trim())
	    .filter(Boolean);
}

describe('the first five minutes of docs/clients.md, followed literally', () => {
	let b;
	let home;
	before(async () => {
		b = await startBridge();
		home = mkdtempSync(join(tmpdir(), 'bb-clients-'));
	});
	after(async () => {
		rmSync(home, { recursive: true, force: true });
		await b?.close();
	});

	// What the reader types in place of the placeholders: the token, the
	// program's full path, and the URL status shows (the test's host is
	// not on 9333).
	function filled(text) {
		return text
		    .replaceAll('$(browser-bridge token)', b.token)
		    .replaceAll('${input:browser-bridge-token}', b.token)
		    .replaceAll('TOKEN', b.token)
		    .replaceAll('"/usr/local/bin/browser-bridge"', JSON.stringify(process.env.BRIDGE_BIN))
		    .replaceAll('"command": "browser-bridge"', `"command": ${JSON.stringify(process.env.BRIDGE_BIN)}`)
		    .replaceAll('http://127.0.0.1:9333/mcp', b.url);
	}

	// Writes a configuration file under the temporary HOME; returns it read back.
	function writeConfig(relative, text) {
		const path = join(home, relative);
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, filled(text));
		return JSON.parse(readFileSync(path, 'utf8'));
	}

	// Plays a client with one server entry of a configuration; returns its name.
	async function play(name, server) {
		const client = new Client({ name, version: '1.0.0' });
		let transport;
		if (server.url !== undefined) {
			transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } });
		} else {
			assert.ok(server.command.startsWith('/'), `${name}: the command is a full path`);
			// The SDK's environment, as clients start stdio servers; the
			// test's host keeps its files in private directories, where a
			// user's are found from HOME and /run/user/UID.
			transport = new StdioClientTransport({ command: server.command, args: server.args,
			    env: { ...getDefaultEnvironment(), XDG_CONFIG_HOME: b.config, XDG_RUNTIME_DIR: b.runtime } });
		}
		await client.connect(transport);
		try {
			const status = await client.callTool({ name: 'host_status', arguments: {} });
			assert.equal(status.structuredContent.extension_connected, true, `${name}: ${JSON.stringify(status)}`);
			const state = await client.callTool({ name: 'get_browser_state', arguments: {} });
			assert.equal(state.isError, undefined, `${name}: ${JSON.stringify(state)}`);
			assert.match(state.content[0].text, /^Tab \d+ /);
		} finally {
			await client.close();
		}
	}

	test('Claude Code: both claude mcp add commands and both .mcp.json blocks', async () => {
		const text = section('Claude Code');
		const all = commands(text).filter(c => c.startsWith('claude mcp add'));
		// The header-free (OAuth) command comes first; its flow, approval
		// included, is tests/e2e's OAuth test: here its shape.
		assert.equal(all[0], 'claude mcp add --transport http browser-bridge http://127.0.0.1:9333/mcp');
		const [, http, stdio] = all;
		const added = /^claude mcp add --transport http browser-bridge (\S+) --header "([^:]+): ([^"]+)"$/.exec(filled(http));
		assert.ok(added, http);
		await play('claude-code-http', { url: added[1], headers: { [added[2]]: added[3] } });
		const local = /^claude mcp add browser-bridge -- (\S+) (.+)$/.exec(stdio);
		assert.ok(local, stdio);
		await play('claude-code-stdio', { command: process.env.BRIDGE_BIN, args: local[2].split(' ') });
		const blocks = jsonBlocks(text);
		assert.equal(blocks.length, 2);
		for (const [i, block] of blocks.entries())
			await play(`claude-code-mcp-json-${i}`, writeConfig('project/.mcp.json', block).mcpServers['browser-bridge']);
	});

	test('Claude Desktop: claude_desktop_config.json, stdio with the full path', async () => {
		const [block] = jsonBlocks(section('Claude Desktop'));
		const config = writeConfig('.config/Claude/claude_desktop_config.json', block);
		await play('claude-desktop', config.mcpServers['browser-bridge']);
	});

	test('Cursor: ~/.cursor/mcp.json, HTTP and stdio', async () => {
		const [oauth, ...blocks] = jsonBlocks(section('Cursor'));
		assert.deepEqual(JSON.parse(oauth), { mcpServers: { 'browser-bridge': { url: 'http://127.0.0.1:9333/mcp' } } },
		    'the OAuth block is the URL alone');
		assert.equal(blocks.length, 2);
		for (const [i, block] of blocks.entries())
			await play(`cursor-${i}`, writeConfig('.cursor/mcp.json', block).mcpServers['browser-bridge']);
	});

	test('VS Code: .vscode/mcp.json with the token asked once, and stdio; status names the client', async () => {
		const [oauth, ...blocks] = jsonBlocks(section('VS Code'));
		assert.deepEqual(JSON.parse(oauth), { servers: { 'browser-bridge': { type: 'http', url: 'http://127.0.0.1:9333/mcp' } } },
		    'the OAuth block is the URL alone');
		assert.equal(blocks.length, 2);
		const http = writeConfig('project/.vscode/mcp.json', blocks[0]);
		assert.equal(http.inputs[0].password, true, 'the token is asked for, not stored');
		const server = http.servers['browser-bridge'];
		const client = new Client({ name: 'vscode', version: '1.99.0' });
		await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }));
		try {
			await client.callTool({ name: 'host_status', arguments: {} });
			// Step 4: status lists the client by the name it gave.
			const status = execFileSync(process.env.BRIDGE_BIN, ['status'],
			    { env: { ...process.env, XDG_CONFIG_HOME: b.config, XDG_RUNTIME_DIR: b.runtime }, encoding: 'utf8' });
			assert.match(status, /vscode 1\.99\.0 \(Streamable HTTP/);
		} finally {
			await client.close();
		}
		await play('vscode-stdio', writeConfig('project/.vscode/mcp.json', blocks[1]).servers['browser-bridge']);
	});
});
