// The URL a spawned `mcp-tasks demo-server --http 0` prints on its stdout ("listening on <url>"),
// for the benchmarks that start their own demo servers.
export function demoUrl(child, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('demo server did not start')), timeoutMs);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
}
