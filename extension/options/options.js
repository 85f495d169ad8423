/* The options page: the evaluate_script switch, kept in chrome.storage.local. */

const KEY = 'evaluate_script';
const box = document.getElementById(KEY);
const status = document.getElementById('status');

chrome.storage.local.get(KEY).then(stored => {
	box.checked = stored[KEY] === true;
});
box.addEventListener('change', () => {
	chrome.storage.local.set({ [KEY]: box.checked }).then(() => {
		status.textContent = box.checked ? 'evaluate_script is allowed.' : 'evaluate_script is off.';
	});
});
