// Runs the host the way Chrome would, with the tests' fake extension in the
// browser's place (every tool call is echoed back), and prints the MCP
// endpoint, the token and a client configuration. Ctrl-C stops it.
// Usage: node scripts/run-fake.mjs PATH/TO/browser-bridge
import { startHost } from '../tests/integration/fake-extension.mjs';

process.env.BRIDGE_BIN = process.argv[2];
const home = process.env.HOME;
const env = { HOME: home };
for (const name of ['XDG_CONFIG_HOME', 'XDG_RUNTIME_DIR', 'XDG_STATE_HOME'])
	env[name] = process.env[name] ?? '';
const host = await startHost({
	args: ['--port', process.env.PORT ?? '9333'],
	env,
});
const config = {
	mcpServers: {
		'browser-bridge': {
			type: 'http',
			url: host.url,
			headers: { Authorization: `Bearer ${host.token}` },
		},
	},
};
process.stdout.write(`Browser Bridge host ${host.welcome.version} is running (fake extension: tool calls are echoed).
MCP endpoint: ${host.url}
Token:        ${host.token}
${host.welcome.port_note ? `Note:         ${host.welcome.port_note}\n` : ''}Client configuration:
${JSON.stringify(config, null, 2)}
Press Ctrl-C to stop.
`);
// Stops the host the way the browser does: by closing its stdin.
const stop = async () => {
	await host.stop().catch(error => process.stderr.write(`${error.message}\n`));
	process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
