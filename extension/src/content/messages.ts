// What the content scripts ask the worker, and what it answers. The worker decides with the
// workspace's rules; the page learns only what a rule does to its own documents and requests.
import type { ResponseEffect, ScriptEffect } from '../../../src/engine/types.js';

export type ContentQuestion = { kind: 'document' } | { kind: 'response'; url: string; method: string };

/** The popup, opening: read what Chrome's rules did to the tabs first (answers when done). */
export type PopupQuestion = { kind: 'matched' };

export interface DocumentAnswer {
  scripts: ScriptEffect[];
}

export interface ResponseAnswer {
  /** The static response a Response rule serves for the request; null when none acts. */
  response: Pick<
    ResponseEffect,
    'ruleId' | 'value' | 'statusCode' | 'statusText' | 'serveWithoutRequest'
  > | null;
}

/** Between the page's world and the bridge: events whose detail is JSON text (it crosses worlds whole). */
export const ASK_EVENT = 'rulekeeper:ask';
export const ANSWER_EVENT = 'rulekeeper:answer';
/** The bridge to the page's world: these scripts (JSON), to inject now. */
export const INJECT_EVENT = 'rulekeeper:inject';

export interface PageAsk {
  id: number;
  url: string;
  method: string;
}

export interface PageAnswer {
  id: number;
  response: ResponseAnswer['response'];
}
