// Reads tokenmeter.config.json, with messages that point at the file and the spot of a JSON syntax error.
import { readFile } from 'node:fs/promises';
import { parseJsonText } from '../../shared/json-object.js';
import { UserFacingError } from '../../shared/user-facing-error.js';
import type { GatewayConfigInput } from './config.js';
import { validateConfig } from './config-validate.js';

export async function loadConfigFile(path: string): Promise<GatewayConfigInput> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new UserFacingError(`cannot read the config file '${path}' (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (error) {
    throw new UserFacingError(`the config file '${path}' is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return validateConfig(parsed);
  } catch (error) {
    if (error instanceof UserFacingError) throw new UserFacingError(`${path}: ${error.message}`);
    throw error;
  }
}
