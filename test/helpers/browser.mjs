#!/usr/bin/env node
// A scripted browser for the sign-in tests ($BROWSER <url>): follows the authorization server's
// redirects by hand, keeping its cookies, until it lands on the CLI's loopback callback. Writes
// the argv it was given to $BROWSER_ARGV_LOG, so a test can check that no secret was in it.
import { appendFileSync } from 'node:fs';

const [url] = process.argv.slice(2);
if (process.env.BROWSER_ARGV_LOG) appendFileSync(process.env.BROWSER_ARGV_LOG, JSON.stringify(process.argv.slice(2)) + '\n');
const jar = new Map();
let next = new URL(url);
for (let hop = 0; hop < 20; hop++) {
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const r = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  for (const c of r.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const i = pair.indexOf('=');
    jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
  }
  await r.body?.cancel();
  const location = r.headers.get('location');
  if (!location) {
    if (next.pathname === '/callback') process.exit(0);
    console.error(`browser: HTTP ${r.status} at ${next.pathname} without a redirect`);
    process.exit(1);
  }
  next = new URL(location, next);
}
console.error('browser: too many redirects');
process.exit(1);
