/**
 * Where a task's agents may go: a list of domains, each allowing itself
 * and its subdomains. An empty list allows every web page.
 * @module agents/domains
 */

/**
 * Says whether a URL lies inside the allowed domains. Pages that are not
 * web pages (about:blank, data:) carry no domain and are always allowed:
 * nothing can be fetched through them.
 * @param {string} url
 * @param {string[]} domains normalised (settings.readDomains)
 * @returns {boolean}
 */
export function domainAllowed(url, domains) {
	if (domains.length === 0)
		return true;
	let parsed;
	try {
		parsed = new URL(url);
	} catch {
		return false;
	}
	if (parsed.protocol === 'about:' || parsed.protocol === 'data:')
		return true;
	const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
	return domains.some(domain => host === domain || host.endsWith(`.${domain}`));
}

/**
 * The message the model sees when an action would leave the allowed domains.
 * @param {string} url
 * @param {string[]} domains
 * @returns {string}
 */
export function domainRefusal(url, domains) {
	return `${url} is outside the domains this task may visit (${domains.join(', ')}). ` +
	    'Stay on those sites, or say the task is impossible there.';
}
