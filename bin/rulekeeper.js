#!/usr/bin/env node
// The `rulekeeper` command: runs the compiled CLI (built by `npm install` through the prepare script),
// once the Node it runs on is known to be one it supports.
import { requireSupportedNode } from './supported-node.js';

requireSupportedNode('Rulekeeper');
await import('../dist/cli/main.js');
