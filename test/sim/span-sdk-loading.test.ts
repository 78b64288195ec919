// The simulator loads the OpenTelemetry SDK only when it exports spans (--otlp-traces-endpoint): about 250 modules
// that every simulator used to load at start, spans or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commonJsModulesLoaded } from '../helpers/commonjs-modules-loaded.js';

/** The OpenTelemetry SDK packages loaded by a fresh process that starts a simulator with `options` and stops it. */
async function sdkModulesLoaded(options: object): Promise<string[]> {
  const simulator = new URL('../../src/sim/index.js', import.meta.url).href;
  const loaded = await commonJsModulesLoaded(`
    const { startSimulator } = await import(${JSON.stringify(simulator)});
    const sim = await startSimulator(${JSON.stringify(options)}, {});
    await sim.close();`);
  return [
    ...new Set(
      loaded.flatMap((path) => /@opentelemetry\/(sdk-trace|exporter-[^/]+)\//.exec(path)?.[1] ?? []),
    ),
  ];
}

test('a simulator without --otlp-traces-endpoint loads no OpenTelemetry SDK module', async () => {
  assert.deepEqual(await sdkModulesLoaded({}), []);
});

test('with --otlp-traces-endpoint it loads the SDK and its exporter', async () => {
  const loaded = await sdkModulesLoaded({ otlpTracesEndpoint: 'http://127.0.0.1:9/v1/traces' });
  assert.ok(loaded.includes('sdk-trace'), `loaded: ${loaded.join(', ')}`);
});
