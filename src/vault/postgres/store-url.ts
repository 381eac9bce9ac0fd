// What every command may ask of MCP_TASKS_STORE without opening the team store: does it name one,
// and how to show it. Apart from pg-connect.ts so that the local vault's commands load neither the
// store's connection code nor its keeper's.

export const isTeamStoreUrl = (v: string | undefined): v is string => Boolean(v && /^postgres(ql)?:\/\//i.test(v));

/** The store URL without its password (and without query parameters but sslmode): safe to print. */
export function redactStoreUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const ssl = u.searchParams.get('sslmode');
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname}${ssl ? `?sslmode=${ssl}` : ''}`;
  } catch {
    return '(an unparsable MCP_TASKS_STORE)';
  }
}
