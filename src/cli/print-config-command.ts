// `tokenmeter print-config CLIENT`: the settings to paste so a client talks to this gateway.
import { CLIENT_NAMES, CLIENT_SNIPPETS } from '../client-config/client-snippets.js';
import { nearestNames } from '../shared/nearest-names.js';
import { UsageError } from '../shared/user-facing-error.js';
import { defineCommand } from './command.js';

export const printConfigCommand = defineCommand({
  usage: [`print-config <${CLIENT_NAMES.join('|')}> [--gateway-url URL] [--model ID] [--key-env VAR]`],
  allowPositionals: true,
  options: [
    {
      name: 'gateway-url',
      type: 'string',
      default: 'http://127.0.0.1:8080',
      env: 'TOKENMETER_GATEWAY_URL',
      valueName: 'URL',
      help: 'The gateway, without /v1',
    },
    {
      name: 'model',
      type: 'string',
      default: 'tokenmeter/sim-7b',
      valueName: 'ID',
      help: 'Model name (or alias) clients should ask for',
    },
    {
      name: 'key-env',
      type: 'string',
      default: 'TOKENMETER_API_KEY',
      valueName: 'VAR',
      help: 'Variable holding the gateway key clients send',
    },
  ],
  details: 'Per-client notes and the client versions these were checked against: docs/clients.md',
  async run({ options, positionals }) {
    const [client, ...extra] = positionals;
    if (client === undefined || extra.length > 0) {
      throw new UsageError(`name one client: ${CLIENT_NAMES.join(', ')}`);
    }
    const build = CLIENT_SNIPPETS[client];
    if (!build) {
      const near = nearestNames(client, CLIENT_NAMES);
      const hint = near.length > 0 ? ` Did you mean '${near[0]}'?` : '';
      throw new UsageError(`unknown client '${client}'.${hint} Clients: ${CLIENT_NAMES.join(', ')}`);
    }
    const gatewayUrl = options['gateway-url'].replace(/\/+$/, '').replace(/\/v1$/, '');
    const snippet = build({
      gatewayUrl,
      model: options['model'],
      keyEnv: options['key-env'],
    });
    process.stdout.write(`# ${snippet.client}: ${snippet.where}\n${snippet.text}\n\n# ${snippet.note}\n`);
    return 0;
  },
});
