// `tokenmeter doctor`: the article's troubleshooting list, run against an endpoint, with the fix for each failure.
import { BACKENDS } from '../protocols/backends.js';
import { UsageError } from '../shared/user-facing-error.js';
import { defineCommand, EXIT_OK, EXIT_RUN_FAILED } from './command.js';

export const doctorCommand = defineCommand({
  usage: [
    'doctor --base-url URL [--api-key-env VAR | --api-key KEY] [--model ID] [--backend openai-chat|openai|vllm]',
    "doctor --command '<vLLM benchmark command line>' [--base-url URL]",
    'doctor --config bench_config.json [--apply] [--base-url URL]',
  ],
  options: [
    {
      name: 'base-url',
      type: 'string',
      default: 'http://127.0.0.1:8000',
      valueName: 'URL',
      help: 'Endpoint to check: a vLLM, a hosted gateway, or a tokenmeter gateway; with --command or --config, the endpoint they should reach when not the one they name',
    },
    {
      name: 'api-key-env',
      type: 'string',
      valueName: 'VAR',
      help: 'Variable holding the key (default: OPENAI_API_KEY)',
    },
    {
      name: 'api-key',
      type: 'string',
      valueName: 'KEY',
      help: 'The key itself (prefer --api-key-env: command lines end up in shell history)',
    },
    {
      name: 'model',
      type: 'string',
      valueName: 'ID',
      help: 'Model ID to check (default: the first one listed)',
    },
    {
      name: 'backend',
      type: 'string',
      choices: BACKENDS,
      default: 'openai-chat',
      valueName: 'NAME',
      help: "bench's names: openai-chat (messages) or openai/vllm (completions prompt); the others are bench only",
    },
    {
      name: 'timeout-ms',
      type: 'integer',
      min: 100,
      default: 15_000,
      valueName: 'MS',
      help: 'Timeout of each request',
    },
    {
      name: 'command',
      type: 'string',
      valueName: 'LINE',
      help: "A vLLM benchmark command (benchmark_serving.py or 'vllm bench serve'), single-quoted: checks what it names and prints it corrected",
    },
    {
      name: 'config',
      type: 'string',
      valueName: 'FILE',
      help: 'A bench --config JSON file: checks what it names and prints it corrected',
    },
    {
      name: 'apply',
      type: 'boolean',
      help: 'With --config: write the corrected file beside it (NAME.fixed.json, never over an existing file)',
    },
    { name: 'json', type: 'boolean', help: 'Print the results as JSON' },
  ],
  details:
    'Exit status: 0 when nothing fails (warnings allowed), 1 otherwise. Guide: docs/troubleshooting.md',
  async run({ options: o, given }) {
    if (o['command'] !== undefined && o['config'] !== undefined)
      throw new UsageError('--command and --config: give one of them');
    if (o['apply'] && o['config'] === undefined) throw new UsageError('--apply goes with --config FILE');
    // Loaded here, as the doctor's other modules are, so that other commands do not load them.
    const { doctorBackend } = await import('../doctor/endpoint-checks.js');
    if (o['command'] !== undefined || o['config'] !== undefined) {
      const typed = ['api-key', 'api-key-env', 'model', 'backend'].filter((name) => given.has(name));
      if (typed.length > 0)
        throw new UsageError(
          `${typed.map((n) => `--${n}`).join(', ')}: with --command or --config these come from the command or the file`,
        );
      const { runFixes } = await import('./doctor-fixes.js');
      return runFixes({
        command: o['command'],
        config: o['config'],
        apply: o['apply'],
        json: o['json'],
        baseUrl: given.has('base-url') ? o['base-url'] : undefined,
        timeoutMs: o['timeout-ms'],
        doctorBackend,
      });
    }
    const { runDoctor } = await import('../doctor/run-doctor.js');
    const { formatChecklist } = await import('../doctor/check.js');
    const backend = doctorBackend(o['backend']);
    const results = await runDoctor({
      baseUrl: o['base-url'],
      apiKey: o['api-key'],
      apiKeyEnv: o['api-key-env'],
      model: o['model'],
      backend,
      backendName: o['backend'],
      timeoutMs: o['timeout-ms'],
      env: process.env,
    });
    const failed = results.some((r) => r.status === 'fail');
    if (o['json']) {
      process.stdout.write(`${JSON.stringify({ ok: !failed, checks: results }, null, 2)}\n`);
    } else {
      const heading = `tokenmeter doctor: ${o['base-url']} (backend ${o['backend']})`;
      process.stdout.write(formatChecklist(heading, results));
    }
    return failed ? EXIT_RUN_FAILED : EXIT_OK;
  },
});
