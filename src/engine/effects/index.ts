// What each rule type does, by type: one file per type beside this one, listed here once.
import type { RuleType } from '../../model/rule-types/rule-type.js';
import { cancelEffect } from './cancel.js';
import { delayEffect } from './delay.js';
import { headersEffect } from './headers.js';
import { queryParamEffect } from './query-param.js';
import { redirectEffect } from './redirect.js';
import { replaceEffect } from './replace.js';
import { requestEffect } from './request.js';
import { responseEffect } from './response.js';
import type { RuleEffect } from './rule-effect.js';
import { scriptEffect } from './script.js';
import { userAgentEffect } from './user-agent.js';

export type { RuleEffect } from './rule-effect.js';

// biome-ignore lint/suspicious/noExplicitAny: the registry holds the effects of ten different pair types.
export const ruleEffects: Record<RuleType, RuleEffect<any>> = {
  Redirect: redirectEffect,
  Cancel: cancelEffect,
  Replace: replaceEffect,
  Headers: headersEffect,
  UserAgent: userAgentEffect,
  Script: scriptEffect,
  QueryParam: queryParamEffect,
  Response: responseEffect,
  Request: requestEffect,
  Delay: delayEffect,
};
