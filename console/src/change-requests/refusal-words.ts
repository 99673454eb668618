// A failed call about a change request as a sentence: the service's refusal with where it points in
// words, or why the service could not answer.
import { ApiError } from '../api.js';
import { describeError } from '../session.js';
import { refusalSentence } from './change-request-words.js';

export function refusalWords(what: string, failure: unknown): string {
  if (!(failure instanceof ApiError)) return `${what}: ${describeError(failure)}`;
  return refusalSentence(what, failure.message, failure.details);
}
