// The worker of worker-fetch.html: fetches, then tells the page.
fetch('/resource?ms=40').then(response => response.text()).then(() => postMessage('done'));
