// Shapes of /v1/settings: a workspace's settings (decisions §19), read by every member, changed by
// admins and owners.
import { type Static, Type } from '@sinclair/typebox';
import { compile } from '../../validation.js';

export const REVIEW_MODES = ['off', 'required'] as const;
export const REVIEWER_ROLES = ['admins', 'editors'] as const;

const Review = Type.Union(
  REVIEW_MODES.map((mode) => Type.Literal(mode)),
  {
    description:
      "`off` (the default): editors write rules and groups directly. `required`: an editor's (or a `write` " +
      "key's) direct writes to rules and groups are refused with `409 Review required` and made through " +
      'change requests; owners, admins and `admin` keys still write directly, and the change log marks ' +
      'those writes (`reviewBypassed`).',
  },
);
const Reviewers = Type.Union(
  REVIEWER_ROLES.map((role) => Type.Literal(role)),
  {
    description:
      'Who may approve or request changes on a change request: `admins` (the default: admins and owners, ' +
      'with a key reaching `admin`) or `editors` (editors too). Never its author.',
  },
);

export const Settings = Type.Object(
  { review: Review, reviewers: Reviewers },
  {
    $id: 'Settings',
    additionalProperties: false,
    description: "The workspace's settings.",
    examples: [{ review: 'required', reviewers: 'admins' }],
  },
);
export type Settings = Static<typeof Settings>;

export const SettingsPatch = Type.Object(
  { review: Type.Optional(Review), reviewers: Type.Optional(Reviewers) },
  {
    $id: 'SettingsPatch',
    additionalProperties: false,
    description: 'The settings to change; those left out keep their values.',
    examples: [{ review: 'required' }],
  },
);
export const checkSettingsPatch = compile(SettingsPatch);

export const DEFAULT_SETTINGS: Settings = { review: 'off', reviewers: 'admins' };
