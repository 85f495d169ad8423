// A private DokuWiki for the end-to-end tests: Debian's dokuwiki package
// (code in /usr/share/dokuwiki, configuration in /etc/dokuwiki) served by
// PHP's built-in web server on a free loopback port, with its own
// configuration and data in a temp directory, so a test never changes the
// system's wiki. One user, who may edit every page; everyone may read.
// The configuration is a copy of Debian's; the data directory starts empty
// rather than as a copy of /var/lib/dokuwiki/data, which only www-data may
// read and which may hold a live wiki's pages.
//
// DokuWiki finds its configuration through DOKU_CONF and DOKU_MAIN_CONF
// (Debian's inc/preload.php defines them only when they are not defined
// yet): a file PHP runs before every script (auto_prepend_file) points
// both at the copy.

import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { settlesWithin } from './harness.mjs';
import { scaled } from '../timing.mjs';

// Where Debian's package puts DokuWiki's code and its configuration.
const DOKUWIKI_CODE = '/usr/share/dokuwiki';
const DOKUWIKI_CONF = '/etc/dokuwiki';
// The directories DokuWiki's init_paths() needs under its savedir.
const DATA_DIRS = ['pages', 'attic', 'media', 'media_attic', 'meta', 'media_meta', 'cache', 'index', 'locks', 'tmp', 'log'];
// The wiki's title (the server is up when its pages say it).
const WIKI_TITLE = 'Bridge Test Wiki';
// How many times a server may lose the race for a free port to another program.
const PORT_TRIES = 5;

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

// Throws, saying how to install them, when PHP or DokuWiki is missing.
function requireDokuWiki() {
	const missing = [];
	try {
		execFileSync('php', ['--version'], { stdio: 'ignore' });
	} catch {
		missing.push('php (php-cli)');
	}
	if (!existsSync(join(DOKUWIKI_CODE, 'doku.php')) || !existsSync(join(DOKUWIKI_CONF, 'dokuwiki.php')))
		missing.push(`DokuWiki (${DOKUWIKI_CODE}, ${DOKUWIKI_CONF})`);
	if (missing.length > 0)
		throw new Error(`the DokuWiki test needs ${missing.join(' and ')}: run scripts/deps.sh test as root ` +
		    '(it installs Debian\'s dokuwiki, php-cli and php-cgi)');
}

// A PHP string literal of text.
function phpString(text) {
	return `'${text.replace(/[\\']/g, '\\$&')}'`;
}

// The bcrypt hash of a password, made by PHP's password_hash (DokuWiki's
// authplain checks $2y$ hashes).
function passwordHash(password) {
	return execFileSync('php', ['-r', 'echo password_hash(stream_get_contents(STDIN), PASSWORD_BCRYPT);'],
	    { input: password, encoding: 'utf8' });
}

// A port no program listens on now (another may take it before we do).
function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

// Writes the wiki's configuration into conf: Debian's files, then a
// local.php that puts the data in data and turns on the access control,
// a user list with the one user, and an ACL that lets users edit.
function writeConfiguration(conf, data, { user, password, fullName }) {
	mkdirSync(conf);
	for (const name of readdirSync(DOKUWIKI_CONF)) {
		const from = join(DOKUWIKI_CONF, name);
		// acl.auth.php and users.auth.php link to the system wiki's own lists
		if (lstatSync(from).isFile())
			cpSync(from, join(conf, name));
	}
	writeFileSync(join(conf, 'local.php'), [
		'<?php',
		`$conf['savedir'] = ${phpString(data)};`,
		`$conf['title'] = ${phpString(WIKI_TITLE)};`,
		"$conf['lang'] = 'en';",
		"$conf['useacl'] = 1;",
		"$conf['authtype'] = 'authplain';",
		"$conf['superuser'] = '@admin';",
		// no reverse DNS lookups for the change log, no check for updates
		"$conf['dnslookups'] = 0;",
		"$conf['updatecheck'] = 0;",
		'',
	].join('\n'));
	writeFileSync(join(conf, 'users.auth.php'), [
		'# <?php exit()?>',
		`${user}:${passwordHash(password)}:${fullName}:${user}@example.org:user`,
		'',
	].join('\n'));
	writeFileSync(join(conf, 'acl.auth.php'), [
		'# <?php exit()?>',
		'*\t@ALL\t1',
		'*\t@user\t8',
		'',
	].join('\n'));
}

// Stops a PHP server and its workers (its process group): asks them to
// end, and kills what is left after a while.
async function stop(child, exited) {
	const signal = name => {
		try {
			process.kill(-child.pid, name);
		} catch {
			// the group is gone
		}
	};
	signal('SIGTERM');
	await settlesWithin(exited, scaled(5000));
	signal('SIGKILL');
	await exited;
}

// Starts PHP's built-in server for the wiki on port; resolves to
// { child, exited, said() } (said: the server's last output).
function spawnServer(root, port) {
	let output = '';
	const child = spawn('php', ['-d', `auto_prepend_file=${join(root, 'prepend.php')}`,
	    '-S', `127.0.0.1:${port}`, '-t', DOKUWIKI_CODE], {
		stdio: ['ignore', 'pipe', 'pipe'],
		// the browser loads the CSS and JavaScript dispatchers side by side;
		// the workers are the server's children, in its own process group,
		// which stop() ends as a whole
		env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
		detached: true,
	});
	const keep = chunk => { output = (output + chunk).slice(-4000); };
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	const exited = new Promise(resolve => {
		child.once('exit', resolve);
		child.once('error', error => {
			keep(`\n${error.message}`);
			resolve();
		});
	});
	return { child, exited, said: () => output };
}

// Starts the wiki's server on a free port; resolves to { child, exited,
// origin } once DokuWiki answers, or throws with what PHP said.
async function serve(root) {
	for (let attempt = 1; ; attempt++) {
		const port = await freePort();
		const origin = `http://127.0.0.1:${port}`;
		const server = spawnServer(root, port);
		let running = true;
		server.exited.then(() => { running = false; });
		const end = Date.now() + scaled(10000);
		while (running && Date.now() < end) {
			const response = await fetch(`${origin}/doku.php`).catch(() => null);
			if (response !== null) {
				const body = await response.text();
				if (response.ok && body.includes(WIKI_TITLE))
					return { child: server.child, exited: server.exited, origin };
				await stop(server.child, server.exited);
				throw new Error(`DokuWiki answered ${response.status} at ${origin}/doku.php:\n${body.slice(0, 2000)}\n${server.said()}`);
			}
			await sleep(50);
		}
		await stop(server.child, server.exited);
		// another program took the port between freePort() and php: try another
		const lostPort = /Address already in use|Failed to listen/i.test(server.said());
		if (running || !lostPort || attempt === PORT_TRIES)
			throw new Error(`php -S ${running ? `did not answer at ${origin} within ${scaled(10000)} ms` : 'exited'}:\n${server.said()}`);
	}
}

// Starts a private wiki with one user who may edit; resolves to a Wiki:
// { origin, user, password, fullName, url(id), pageFile(folder, id, extension),
// pageSource(id), indexed(id), close() }.
export async function startDokuWiki({ user = 'bridge', password = 'correct horse 7', fullName = 'Bridge Tester' } = {}) {
	requireDokuWiki();
	const root = mkdtempSync(join(tmpdir(), 'bb-dokuwiki-'));
	try {
		const conf = join(root, 'conf');
		const data = join(root, 'data');
		for (const dir of DATA_DIRS)
			mkdirSync(join(data, dir), { recursive: true });
		writeConfiguration(conf, data, { user, password, fullName });
		writeFileSync(join(root, 'prepend.php'), [
			'<?php',
			`define('DOKU_CONF', ${phpString(`${conf}/`)});`,
			`define('DOKU_MAIN_CONF', ${phpString(`${conf}/`)});`,
			'',
		].join('\n'));
		const { child, origin, exited } = await serve(root);
		return new Wiki({ root, data, child, exited, origin, user, password, fullName });
	} catch (error) {
		rmSync(root, { recursive: true, force: true });
		throw error;
	}
}

// A running private wiki.
export class Wiki {
	constructor(fields) {
		Object.assign(this, fields);
	}

	// The URL of page id.
	url(id) {
		return `${this.origin}/doku.php?id=${encodeURIComponent(id)}`;
	}

	// Where DokuWiki keeps a file about page id: in folder (pages, meta)
	// of its data, the namespaces as directories, with extension.
	pageFile(folder, id, extension) {
		return join(this.data, folder, `${id.replace(/:/g, '/')}${extension}`);
	}

	// The wiki text of page id as DokuWiki stored it.
	pageSource(id) {
		return readFileSync(this.pageFile('pages', id, '.txt'), 'utf8');
	}

	// Whether DokuWiki's indexer (lib/exe/taskrunner.php, which a page view
	// calls) has put page id into the search index: it writes
	// meta/ID.indexed when done.
	indexed(id) {
		return existsSync(this.pageFile('meta', id, '.indexed'));
	}

	// Stops the server and removes the wiki's copy.
	async close() {
		await stop(this.child, this.exited);
		if (process.env.E2E_KEEP !== '1')
			rmSync(this.root, { recursive: true, force: true });
	}
}
