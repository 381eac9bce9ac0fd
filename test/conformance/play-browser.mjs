#!/usr/bin/env node
// Plays the browser for the conformance auth scenarios ($BROWSER <url>): fetch the authorization
// URL without following redirects, then request the Location it gives, which is the CLI's
// loopback callback. The suite's authorization server answers at once with the code.
const [url] = process.argv.slice(2);
if (!url) {
  console.error('play-browser: no URL given');
  process.exit(2);
}
try {
  const answer = await fetch(url, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (!location) {
    console.error(`play-browser: the authorization endpoint answered HTTP ${answer.status} without a redirect`);
    process.exit(1);
  }
  const callback = await fetch(new URL(location, url), { redirect: 'manual' });
  await callback.body?.cancel();
} catch (err) {
  console.error(`play-browser: ${err.message}`);
  process.exit(1);
}
