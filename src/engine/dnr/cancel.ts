// Cancel: Chrome's block action. Its priority is above every other rule's (see compile.ts).
import { type PairTranslator, withCondition } from './pair-rule.js';

export const cancelPair: PairTranslator = (pair) => withCondition(pair, { type: 'block' });
