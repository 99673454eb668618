// Part of `npm run build`, after the service is compiled: the OpenAPI document it serves, written to
// dist/openapi.json, and the client's types generated from it (src/client/schema.d.ts, not in git),
// then the client compiled to dist/client.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

execFileSync(process.execPath, ['bin/rulekeeper.js', 'openapi', '--output', 'dist/openapi.json'], {
  stdio: 'inherit',
});
const document = JSON.parse(readFileSync('dist/openapi.json', 'utf8'));
const header = '// Generated from the OpenAPI document by scripts/build-client.mjs: do not edit.\n';
writeFileSync('src/client/schema.d.ts', header + astToString(await openapiTS(document)));
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.client.json'], {
  stdio: 'inherit',
});
mkdirSync('dist/client', { recursive: true });
copyFileSync('src/client/schema.d.ts', 'dist/client/schema.d.ts');
