// The versions the start check lets through are those package.json's `engines` names (npm warns by
// the one, the command stops by the other), and a Node the project does not support stops with a
// sentence naming the supported ones instead of the SQLite driver's crash.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, SUPPORTED } from '../../bin/supported-node.js';

const root = resolve(import.meta.dirname, '../..');
const engines = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).engines.node as string;
// npm's own range reader (a dependency of npm's tooling here), so the range is read as npm reads it.
const semver = createRequire(import.meta.url)('semver') as {
  satisfies: (version: string, range: string) => boolean;
};

describe('the supported Node versions', () => {
  const versions = ['18.20.0', '20.19.0', '20.20.2', '21.7.0', '22.11.0', '22.12.0', '22.23.5', '23.11.0'];
  versions.push('24.0.0', '24.22.3', '25.2.0', '26.0.0', '26.12.1', '27.1.0');

  it.each(versions)('%s: the start check and engines agree', (version) => {
    expect(isSupportedNode(`v${version}`)).toBe(semver.satisfies(version, engines));
  });

  it('the Node running this test is one of them', () => {
    expect(isSupportedNode(process.version)).toBe(true);
  });

  it('stops an unsupported Node with a sentence, not a crash', () => {
    // The check as the command runs it, with the version it reads replaced by Node 20's.
    const script = `Object.defineProperty(process, 'version', { value: 'v20.20.2' });
      const { requireSupportedNode } = await import(${JSON.stringify(resolve(root, 'bin/supported-node.js'))});
      requireSupportedNode('Rulekeeper');
      console.log('went on');`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`Rulekeeper needs ${SUPPORTED}; this is Node.js v20.20.2.`);
  });
});
