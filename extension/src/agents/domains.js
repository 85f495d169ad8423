/**
 * Where a task's agents may go: a list of domains, each allowing itself
 * and its subdomains. An empty list allows every web page. The person's
 * list (options page) is a ceiling that a client's list can only narrow.
 * @module agents/domains
 */

import { BridgeError, ErrorCode } from '../errors.js';

/**
 * Says whether a host name is one of the domains or a subdomain of one.
 * @param {string} host lower case, without a trailing dot
 * @param {string[]} domains normalised (settings.readDomains)
 * @returns {boolean}
 */
export function hostWithin(host, domains) {
	return domains.some(domain => host === domain || host.endsWith(`.${domain}`));
}

/**
 * The host name of a URL as the domain check reads it, or null when the
 * URL cannot be parsed.
 * @param {string} url
 * @returns {string|null}
 */
function urlHost(url) {
	try {
		return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
	} catch {
		return null;
	}
}

/**
 * Says whether a URL lies inside the allowed domains. Pages that are not
 * web pages (about:blank, data:) carry no domain and are always allowed:
 * nothing can be fetched through them. An unparseable URL is outside.
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
	return hostWithin(parsed.hostname.toLowerCase().replace(/\.$/, ''), domains);
}

/**
 * The message the model sees when an action would leave the allowed
 * domains: it names the URL and its domain.
 * @param {string} url
 * @param {string[]} domains
 * @returns {string}
 */
export function domainRefusal(url, domains) {
	const host = urlHost(url);
	return `${url}${host !== null && host !== '' ? ` (domain ${host})` : ''} is outside the domains this task may visit ` +
	    `(${domains.join(', ')}). Stay on those sites, or say the task is impossible there.`;
}

/**
 * The domains a task may visit: the client's list narrows the person's
 * (the options page); an empty or missing client list means the person's.
 * A client domain that lies outside the person's list is refused, never
 * silently dropped (dropping all of them would widen the task to the
 * person's whole list).
 * @param {string[]} personal the person's list, normalised; empty: anywhere
 * @param {string[]} requested the client's list, normalised
 * @param {string} optionsUrl the options page, named in the error
 * @returns {string[]}
 * @throws {BridgeError} INVALID_ARGUMENT when a client domain lies outside the person's list
 */
export function taskDomains(personal, requested, optionsUrl) {
	if (requested.length === 0)
		return personal;
	if (personal.length === 0)
		return requested;
	const outside = requested.filter(domain => !hostWithin(domain, personal));
	if (outside.length > 0)
		throw new BridgeError(ErrorCode.INVALID_ARGUMENT,
		    `allowed_domains can only narrow the person's list of allowed domains (${personal.join(', ')}), ` +
		    `and ${outside.join(', ')} ${outside.length === 1 ? 'lies' : 'lie'} outside it. Name domains within that list, ` +
		    `or leave allowed_domains out to use it; only the person can widen it, on the options page (${optionsUrl}).`);
	return requested;
}
