// oidc-provider ships no types; the tests use a handful of its calls, typed where they are used.
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}
