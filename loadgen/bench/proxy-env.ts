// Proxy variables left over in the shell are a classic cause of "local proxy failed" with Python tools, which
// honour them. tokenmeter bench connects directly and ignores them; it says so, so that a user comparing with
// another tool knows one of the two went through a proxy. Credentials in the values are masked.

const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'];

function mask(value: string): string {
  return value.replace(/\/\/[^/@]*@/, '//***@');
}

/** One line per proxy variable set, in any letter case. */
export function proxyNotes(env: NodeJS.ProcessEnv): string[] {
  const notes: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '' || !PROXY_VARIABLES.includes(name.toLowerCase())) continue;
    notes.push(
      `${name}=${mask(value)} is set: tokenmeter connects directly and ignores it (Python tools such as vLLM's ` +
        'benchmark would use it; unset it if you compare the two)',
    );
  }
  return notes;
}
