// Stale proxy variables: HTTP_PROXY and friends left in a shell send every request of clients that honour them
// (Python requests/aiohttp, curl) through a proxy, often a local one that is no longer running ("local proxy
// failed"). tokenmeter's own HTTP client does not read them; the benchmark scripts users compare with do.
import { connect } from 'node:net';
import { type CheckResult, check, withRemedy } from './check.js';

const TITLE = 'proxy variables';

function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return [name, value];
  }
  return undefined;
}

/** NO_PROXY semantics as curl and Python requests apply them: `*`, exact hosts, and domain suffixes. */
export function bypassesProxy(host: string, port: string, noProxy: string): boolean {
  return noProxy
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '')
    .some((entry) => {
      if (entry === '*') return true;
      const [entryHost = '', entryPort] = entry.split(':');
      if (entryPort !== undefined && entryPort !== port) return false;
      const bare = entryHost.replace(/^\*?\./, '');
      return host === bare || host.endsWith(`.${bare}`);
    });
}

function reachable(proxy: URL, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const port = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
    const socket = connect({ host: proxy.hostname, port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

export async function checkProxy(
  target: URL,
  env: NodeJS.ProcessEnv,
  timeoutMs = 1000,
): Promise<CheckResult> {
  const scheme = target.protocol === 'https:' ? 'https' : 'http';
  const names = [`${scheme}_proxy`, `${scheme.toUpperCase()}_PROXY`, 'all_proxy', 'ALL_PROXY'];
  const proxy = firstSet(env, names);
  if (!proxy) return check('proxy', TITLE, 'pass', `no ${scheme.toUpperCase()}_PROXY / ALL_PROXY set`);
  const [name, value] = proxy;
  const port = target.port || (scheme === 'https' ? '443' : '80');
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy && bypassesProxy(target.hostname, port, noProxy[1])) {
    return check('proxy', TITLE, 'pass', `${name} is set but ${noProxy[0]} exempts ${target.hostname}`);
  }
  let proxyUrl: URL;
  try {
    proxyUrl = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return check('proxy', TITLE, 'fail', `${name}=${value} is not a URL`, `unset ${name}`);
  }
  const shown = `${proxyUrl.protocol}//${proxyUrl.host}`;
  const exempt = `or add ${target.hostname} to NO_PROXY`;
  if (!(await reachable(proxyUrl, timeoutMs))) {
    // Every variable of the scheme goes: once the first is unset, clients fall back to the next one set.
    const variables = names.filter((n) => env[n] !== undefined && env[n] !== '');
    return withRemedy(
      check(
        'proxy',
        TITLE,
        'fail',
        `${name} sends ${target.host} through ${shown}, which does not answer: clients that honour it (Python requests/aiohttp, curl) fail with "local proxy failed"`,
        `unset ${variables.join(' ')} ${exempt}`,
      ),
      { kind: 'unset-proxy', variables },
    );
  }
  return check(
    'proxy',
    TITLE,
    'warn',
    `${name} sends ${target.host} through ${shown}: clients that honour it measure the proxy too (tokenmeter itself ignores it)`,
    `unset ${name} ${exempt} if that is not intended`,
  );
}
