// Paths of the committed test fixtures (tests run from dist/, fixtures stay in the source tree).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = new URL('../../../../test/gateway/fixtures/', import.meta.url);

export function fixturePath(name: string): string {
  return fileURLToPath(new URL(name, FIXTURES));
}

export function fixture(name: string): string {
  return readFileSync(fixturePath(name), 'utf8');
}
