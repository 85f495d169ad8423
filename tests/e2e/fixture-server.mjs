// The fixture site for the end-to-end tests: tests/e2e/site served on two
// loopback ports, so pages have a second origin for cross-origin iframes.
// In HTML files {{OTHER_ORIGIN}} and {{OWN_ORIGIN}} are replaced.
//
// Special paths:
//   /slow?ms=N          answers after N ms (an HTML page)
//   /hang               never answers (until the server closes)
//   /held?key=K         answers (a page titled "Held page") once the test
//                       calls release(K); arrived(K) resolves when it is asked
//   /status/404         a 404 page
//   /redirect?to=URL    a 302 to URL
//   /resource?ms=N      a small script answered after N ms
//   /bank.html          the bank's page, which sets an HttpOnly session cookie
//   /bank/api/balance   the account's IBAN and balance, as JSON, for the
//                       session cookie and the page's bearer token (401
//                       without them); its answer renews the cookie
//   /vendor/NAME.js     a front-end framework's browser build from npm
//                       (pinned in tests/package.json): react, react-dom, vue
//   /npm/PACKAGE/PATH   a file of a package from npm (pinned in
//                       tests/package.json or its lock): Angular, rxjs and
//                       tslib, which the page loads through an import map;
//                       the component libraries of the names corpus
//                       (site/names): Bootstrap, Material Web and Lit with
//                       its parts, Shoelace, Tom Select, Choices.js and
//                       flatpickr; a path without its .js, as rxjs's modules
//                       import each other, is served with it

import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, normalize, extname, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const SITE = join(dirname(fileURLToPath(import.meta.url)), 'site');
const require = createRequire(import.meta.url);

/* The framework builds a fixture page may load: package, file in it. */
const VENDOR = {
	'/vendor/react.js': ['react', 'umd/react.production.min.js'],
	'/vendor/react-dom.js': ['react-dom', 'umd/react-dom.production.min.js'],
	'/vendor/vue.js': ['vue', 'dist/vue.global.prod.js'],
};

/* The packages /npm/ serves. */
const NPM_PACKAGES = new Set([
	'@angular/core', '@angular/common', '@angular/compiler', '@angular/platform-browser', '@angular/forms', 'rxjs', 'tslib',
	'bootstrap', '@material/web', 'lit', 'lit-html', 'lit-element', '@lit/reactive-element', '@lit/context',
	'@shoelace-style/shoelace', 'tom-select', 'choices.js', 'flatpickr',
]);

/* A package's folder: the first node_modules on the lookup path that holds it (many do not export their package.json). */
function packageRoot(name) {
	for (const dir of require.resolve.paths(name) ?? []) {
		const root = join(dir, name);
		if (existsSync(join(root, 'package.json')))
			return root;
	}
	throw new Error(`fixture-server: package ${name} is not installed`);
}

/* A vendored file's path (packages may not export it, so from their root). */
function vendorPath([name, file]) {
	return join(packageRoot(name), file);
}

/* The file an /npm/ path names, or undefined when it is outside the packages served. */
async function npmFile(pathname) {
	const parts = decodeURIComponent(pathname).split('/').slice(2);
	const nameLength = parts[0]?.startsWith('@') ? 2 : 1;
	const name = parts.slice(0, nameLength).join('/');
	const rest = normalize(parts.slice(nameLength).join('/'));
	if (!NPM_PACKAGES.has(name) || rest.startsWith('..'))
		return undefined;
	const file = vendorPath([name, rest]);
	for (const candidate of [file, `${file}.js`]) {
		try {
			return { path: candidate, body: await readFile(candidate) };
		} catch {
			/* try the next */
		}
	}
	return undefined;
}

const TYPES = {
	'.html': 'text/html; charset=utf-8',
	'.js': 'text/javascript; charset=utf-8',
	'.mjs': 'text/javascript; charset=utf-8',
	'.css': 'text/css; charset=utf-8',
	'.json': 'application/json',
	'.svg': 'image/svg+xml',
};

/* The bank fixture's secrets: its session cookie, the page's bearer token, the account. */
export const BANK_SESSION = 'c2Vzc2lvbi1vZi10aGUtcGVyc29u';
export const BANK_BEARER = 'Bearer bank-token-5f2c9a7e1d3b8064';
export const BANK_ACCOUNT = { iban: 'DE89 3704 0044 0532 0130 00', balance: '1234.56 EUR' };

// Starts one server; resolves to { server, origin }.
function listen(handler) {
	return new Promise((resolve, reject) => {
		const server = createServer(handler);
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			resolve({ server, origin: `http://127.0.0.1:${port}` });
		});
	});
}

// Starts the two servers; resolves to { origin, other, requestsTo(host),
// arrived(key), release(key), close() }.
export async function startFixtureSite() {
	const origins = {};
	const hanging = new Set();
	const held = new Map();
	// The /held request of a key: when it came, and the answer it waits for.
	const heldOf = key => {
		if (!held.has(key)) {
			const entry = {};
			entry.arrived = new Promise(resolve => { entry.arrive = resolve; });
			entry.released = new Promise(resolve => { entry.release = resolve; });
			held.set(key, entry);
		}
		return held.get(key);
	};
	/* The paths asked for, by the host name the browser used (the sites outside a task's fence are counted here). */
	const requests = new Map();
	const handler = which => async (req, res) => {
		const url = new URL(req.url, 'http://x');
		const host = new URL(`http://${req.headers.host ?? 'unknown'}`).hostname;
		requests.set(host, [...(requests.get(host) ?? []), req.url]);
		const own = origins[which], other = origins[which === 'a' ? 'b' : 'a'];
		const send = (status, type, body) => {
			res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
			res.end(body);
		};
		if (url.pathname === '/slow') {
			const ms = Number(url.searchParams.get('ms') ?? 1000);
			const timer = setTimeout(() => send(200, TYPES['.html'],
			    `<!doctype html><title>Slow page</title><h1>Slow page after ${ms} ms</h1><button>Slow button</button>`), ms);
			res.on('close', () => clearTimeout(timer));
			return;
		}
		if (url.pathname === '/held') {
			const key = url.searchParams.get('key') ?? '';
			const entry = heldOf(key);
			hanging.add(res);
			res.on('close', () => hanging.delete(res));
			entry.arrive();
			await entry.released;
			if (!res.destroyed)
				send(200, TYPES['.html'], `<!doctype html><title>Held page</title><h1>Held page ${key}</h1><button>Held button</button>`);
			return;
		}
		if (url.pathname === '/hang') {
			hanging.add(res);
			res.on('close', () => hanging.delete(res));
			return;
		}
		if (url.pathname === '/redirect') {
			res.writeHead(302, { Location: url.searchParams.get('to') ?? '/', 'Cache-Control': 'no-store' });
			res.end();
			return;
		}
		if (url.pathname === '/bank/api/balance') {
			const signedIn = (req.headers.cookie ?? '').includes(`bank_session=${BANK_SESSION}`) &&
			    req.headers.authorization === BANK_BEARER;
			res.writeHead(signedIn ? 200 : 401, {
				'Content-Type': TYPES['.json'], 'Cache-Control': 'no-store',
				'Set-Cookie': `bank_session=${BANK_SESSION}; HttpOnly; Path=/; SameSite=Strict`,
			});
			res.end(JSON.stringify(signedIn ? BANK_ACCOUNT : { error: 'sign in first' }));
			return;
		}
		if (url.pathname === '/bank.html')
			res.setHeader('Set-Cookie', `bank_session=${BANK_SESSION}; HttpOnly; Path=/; SameSite=Strict`);
		if (url.pathname === '/status/404') {
			send(404, TYPES['.html'], '<!doctype html><title>Not found</title><h1>Nothing here</h1>');
			return;
		}
		if (url.pathname === '/resource') {
			const ms = Number(url.searchParams.get('ms') ?? 500);
			const timer = setTimeout(() => send(200, TYPES['.js'], 'window.__resourceLoaded = true;'), ms);
			res.on('close', () => clearTimeout(timer));
			return;
		}
		if (VENDOR[url.pathname] !== undefined) {
			send(200, TYPES['.js'], await readFile(vendorPath(VENDOR[url.pathname])));
			return;
		}
		if (url.pathname.startsWith('/npm/')) {
			const found = await npmFile(url.pathname);
			if (found === undefined)
				send(404, TYPES['.html'], '<!doctype html><title>Not found</title><h1>Not found</h1>');
			else
				send(200, TYPES[extname(found.path)] ?? TYPES['.js'], found.body);
			return;
		}
		let path = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
		if (path.endsWith('/'))
			path += 'index.html';
		if (path.startsWith('/spa/'))
			path = '/spa.html';
		try {
			let body = await readFile(join(SITE, path));
			const type = TYPES[extname(path)] ?? 'application/octet-stream';
			if (extname(path) === '.html')
				body = body.toString('utf8').replaceAll('{{OTHER_ORIGIN}}', other).replaceAll('{{OWN_ORIGIN}}', own);
			send(200, type, body);
		} catch {
			send(404, TYPES['.html'], '<!doctype html><title>Not found</title><h1>Not found</h1>');
		}
	};
	const a = await listen(handler('a'));
	const b = await listen(handler('b'));
	origins.a = a.origin;
	origins.b = b.origin;
	return {
		origin: a.origin,
		other: b.origin,
		// The paths requested under a host name (e.g. localhost), oldest first.
		requestsTo: host => [...(requests.get(host) ?? [])],
		// Resolves once /held?key=KEY was asked for.
		arrived: key => heldOf(key).arrived,
		// Lets /held?key=KEY answer, now or when it is asked for.
		release: key => heldOf(key).release(),
		async close() {
			for (const res of hanging)
				res.destroy();
			for (const s of [a.server, b.server]) {
				s.closeAllConnections();
				await new Promise(resolve => s.close(resolve));
			}
		},
	};
}
