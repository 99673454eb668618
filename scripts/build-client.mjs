// Part of `npm run build`, before the service is compiled: the OpenAPI document the service serves,
// built from the sources (tsx) and written to dist/openapi.json, and the client's types generated
// from it (src/client/schema.d.ts, not in git). The service's own commands (rulekeeper test, lint)
// call the API through that client, so its types must exist before the service compiles.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

mkdirSync('dist', { recursive: true });
execFileSync(
  process.execPath,
  ['--import', 'tsx', 'src/cli/main.ts', 'openapi', '--output', 'dist/openapi.json'],
  { stdio: 'inherit' },
);
const document = JSON.parse(readFileSync('dist/openapi.json', 'utf8'));
const header = '// Generated from the OpenAPI document by scripts/build-client.mjs: do not edit.\n';
writeFileSync('src/client/schema.d.ts', header + astToString(await openapiTS(document)));
